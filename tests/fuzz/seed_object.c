// SPDX-License-Identifier: GPL-2.0
/*
 * The code of the ELF files the report and ELF targets start from
 * (tests/fuzz/Makefile builds it as a program, a PIE, a shared object, a
 * "vmlinux" and, with -DKMOD, a module): global, weak, local and alias
 * functions, one with a C++ mangled name, an ifunc, and in the module
 * .init.text and .exit.text.
 */
__attribute__((noinline)) int alpha(int x)
{
	int i;

	for (i = 0; i < x; i++)
		__asm__ volatile("");
	return i;
}

__attribute__((noinline, weak)) int beta(int x)
{
	return alpha(x) + 1;
}

__attribute__((noinline)) static int gamma_local(int x)
{
	return beta(x) * 2;
}

int delta(int x) __attribute__((alias("alpha")));

/* pmclog::fuzz::cxx(int) */
__attribute__((noinline)) int cxx(int x) __asm__("_ZN6pmclog4fuzz3cxxEi");
int cxx(int x)
{
	return gamma_local(x) - 1;
}

#ifndef KMOD
static int (*resolve_epsilon(void))(int)
{
	return alpha;
}

int epsilon(int x) __attribute__((ifunc("resolve_epsilon")));
#endif

int (*keep)(int) = gamma_local;

#ifdef MAIN
int main(int argc, char **argv)
{
	(void)argv;
	return keep(argc) + cxx(argc);
}
#endif

#ifdef KMOD
__attribute__((section(".init.text"), noinline)) int seed_init(void)
{
	return beta(3);
}

__attribute__((section(".exit.text"), noinline)) void seed_exit(void)
{
	keep = 0;
}
#endif
