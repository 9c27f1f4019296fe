/* cpu_relax.h: the pause a thread makes in each turn of a spin-wait (pipeline.c, and pcapread.c
 * waiting for bytes another thread reads ahead): it tells the CPU the loop is waiting, which
 * saves power and lets a sibling hardware thread run. */
#ifndef ROCEDUMP_CPU_RELAX_H
#define ROCEDUMP_CPU_RELAX_H

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

#endif
