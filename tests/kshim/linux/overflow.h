/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: linux/overflow.h; struct_size() is in kshim.h. */
#include "../kshim.h"
