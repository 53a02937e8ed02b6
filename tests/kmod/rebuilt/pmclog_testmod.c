// SPDX-License-Identifier: GPL-2.0
/* pmclog_testmod, rebuilt: the same module with another busy function. */
#define PMCLOG_TESTMOD_REBUILT
#include "../pmclog_testmod.c"
