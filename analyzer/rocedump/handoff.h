/* handoff.h: writing what another core will read (pipeline.c: a worker's decodes and frame
 * records, read by the sink thread). An ordinary store first fetches its line for ownership,
 * and the line is most often still in the cache of the core that read it last, the other one:
 * a worker would wait on those cross-core fetches for a large part of its decode time. Streaming (non-temporal)
 * stores write the line without fetching it first; the reader then loads it from memory, as it
 * would have loaded it from the writer's cache. So a worker builds each record in a scratch copy
 * of its own, which stays in its cache, and streams it out with handoff_copy(); handoff_fence()
 * then orders those stores before the store that publishes them (streaming stores are weakly
 * ordered: a release store alone does not order them).
 *
 * Under AddressSanitizer or ThreadSanitizer, and off x86-64, both are plain memcpy() and nothing:
 * the sanitizers see no store made by an intrinsic. */
#ifndef ROCEDUMP_HANDOFF_H
#define ROCEDUMP_HANDOFF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HANDOFF_PLAIN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__x86_64__)
#define HANDOFF_PLAIN 1
#endif

#ifndef HANDOFF_PLAIN
#include <immintrin.h>
#endif

/* Copy bytes (a multiple of 8, to an 8-byte boundary) for another core to read. */
static inline void handoff_copy(void *to, const void *from, size_t bytes)
{
#ifdef HANDOFF_PLAIN
	memcpy(to, from, bytes);
#else
	long long *d = to;
	const unsigned char *s = from;
	for (size_t i = 0; i < bytes / 8; i++) {
		long long v;
		memcpy(&v, s + 8 * i, sizeof(v));
		_mm_stream_si64(d + i, v);
	}
#endif
}

/* The handoff_copy() stores before any store that follows (the one that publishes them). */
static inline void handoff_fence(void)
{
#ifndef HANDOFF_PLAIN
	_mm_sfence();
#endif
}

#endif
