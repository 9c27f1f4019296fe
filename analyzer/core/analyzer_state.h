/* analyzer_state.h: struct roce_analyzer, the transport analyzer's whole state (internal): the
 * stream table and its maps, the block pools, the send log, interned addresses, the congestion,
 * copy, path and mirror state, the frame's findings (finding_add), what is published for the
 * prefaulting thread and the look-ahead's frames in flight. */
#ifndef ROCE_ANALYZER_STATE_H
#define ROCE_ANALYZER_STATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "congestion.h"
#include "copies.h"
#include "idxmap.h"
#include "mirror.h"
#include "path.h"
#include "roce/analyze.h"
#include "stream_blocks.h"
#include "u64map.h"

/* An array the analysis fills from its start, as published for roce_analyzer_prefault() on
 * another thread (prefault.c): where its mapping is, how much of it is in use. The analysing
 * thread stores, the prefaulting thread loads (relaxed: populating pages changes no byte in
 * them, so a mix of old and new values only populates the wrong pages, or none). */
struct prefault_area {
	_Atomic(uint8_t *) base;  /* the mapping's start, NULL: none */
	_Atomic size_t used;      /* bytes in use from base on */
	_Atomic size_t size;      /* the mapping's size */
};
enum prefault_kind { PF_CORES, PF_IDS, PF_REQ, PF_LOSS, PF_AREAS };

static inline void prefault_publish(struct prefault_area *pf, void *base, size_t used, size_t size)
{
	atomic_store_explicit(&pf->base, (uint8_t *)base, memory_order_relaxed);
	atomic_store_explicit(&pf->size, size, memory_order_relaxed);
	atomic_store_explicit(&pf->used, used, memory_order_relaxed);
}
static inline void prefault_used(struct prefault_area *pf, size_t used)
{
	atomic_store_explicit(&pf->used, used, memory_order_relaxed);
}

/* Fixed-size blocks by index; index 0 is never handed out (0 means none). Taking a block may
 * move the pool: pointers into it are valid until the next block_take on the same pool. */
struct block_pool {
	uint8_t *mem;
	uint32_t size;            /* bytes per block */
	uint32_t n_alloc, n_used;
	uint32_t free_head;       /* given-back blocks, linked through their first 4 bytes; 0 ends */
	struct prefault_area *pf; /* where its growth is published (NULL: nowhere) */
};

/* The send log: the first sending of every request PSN of every stream (a new request, or a
 * late one filling a hole), newest last, in a ring of SEND_LOG_SIZE entries; each entry links to
 * its stream's previous one (stream.last_send), so the original send of a PSN that times out is
 * found by walking back its own stream's sends. Entries are numbered from 1 (0: none), and
 * entry n lives at n % SEND_LOG_SIZE until overwritten. */
#define SEND_LOG_SIZE (1u << 16)
#define SEND_LOG_WALK 4096u      /* at most this many of a stream's sends are walked back */
struct send_rec {
	int64_t ts;
	uint32_t seq, prev;       /* this entry's number; the stream's previous entry */
	uint32_t stream;          /* stream index */
	uint32_t psn, span;       /* the request's first PSN and the PSNs it takes (READ: several) */
	uint32_t frame;           /* its frame number's low 32 bits (frame_back) */
};

/* A frame number kept as its low 32 bits: the number nearest now with those bits (the frames
 * referred to are at most 2^31 numbers away: earlier ones, or, in a file whose interfaces are
 * analysed in time order, ones later in the file analysed before now); 0 when that is none. */
static inline uint64_t frame_back(uint64_t now, uint32_t lo)
{
	int64_t back = (int32_t)((uint32_t)now - lo);
	if (back < 0)
		return now + (uint64_t)-back;
	return (uint64_t)back < now ? now - (uint64_t)back : 0;
}

/* A stream's numbers for the outside (analyze.h): kept beside the table, not in the 64-byte
 * core, one entry per table entry. */
struct stream_ids {
	uint32_t id, pair;
	uint32_t copies;          /* frames of the stream that were copies (copies.h) */
	uint32_t cong;            /* its congestion block (congestion.h) in cong_pool, 0: none; here
				     and not in the core: touched only by marked frames and CNPs */
};

/* roce_analyze_prefetch() (prefetch.c) loads a frame's state in four stages, AHEAD_STEP frames
 * apart: its frames in flight are the last AHEAD_RING it was given. */
#define AHEAD_STEP 4u
#define AHEAD_RING (4u * AHEAD_STEP)
/* A frame's stream_hint: its stream's hash (bits 0-31) with HINT_HASH set (stream_hash.h); from
 * the look-ahead, HINT_AHEAD too and the frame's number there (mod AHEAD_IDS) from bit
 * HINT_AHEAD_SHIFT on, which finds the ids stage 2 noted for a new stream. AHEAD_IDS frames are
 * far more than the look-ahead and the pipeline keep in flight. */
#define HINT_AHEAD (UINT64_C(1) << 33)
#define HINT_AHEAD_SHIFT 34
#define AHEAD_IDS 256u
_Static_assert((AHEAD_RING & (AHEAD_RING - 1)) == 0, "a power of two: (n - k) % AHEAD_RING is right across n's wrap");

struct roce_analyzer {
	uint32_t max_streams, pmtu_cfg;
	struct idxmap streams;    /* key → index into s[] (idxmap.h: checked against s[].key) */
	struct idxmap pairs;      /* (src id, dst id) → most recent request stream index (checked
				   * against that stream's key: one evicted since is not found) */
	struct u64map addr_index; /* address hash → address id */
	struct stream *s;
	struct stream_ids *ids;   /* beside s[], as many (ids_alloc of them: more after a failed growth of s[]) */
	uint32_t next_id;         /* the last stream id given */
	uint32_t n_alloc, n_used, ids_alloc;
	uint64_t clock;           /* stream lookups so far: the last one's stream.touched */
	uint32_t newest;          /* the stream looked up last, NO_IDX before any */
	struct use_order {        /* streams by stream.touched, oldest first, as at some moment: */
		struct touch_rec {  /* the eviction candidates (entry_take in stream_table.c) */
			uint64_t touched;
			uint32_t idx;
		} *rec;
		uint32_t n, pos, alloc;
	} evict;
	uint8_t (*addrs)[17];     /* address bytes + length */
	struct addr_pair {        /* the last two address pairs looked up, newest first */
		uint8_t bytes[32];
		uint32_t len, src, dst;  /* len 0: empty */
	} recent_pairs[2];
	struct pending_req {      /* CM REQs waiting for their REP (a small ring) */
		uint32_t comm_id, active, passive, qpn;
		uint8_t path_mtu;
		bool used;
	} reqs[16];
	unsigned next_req;
	uint32_t n_addrs, addrs_alloc;
	uint64_t evictions;
	/* roce_analyzer_on_evict: told of each stream before it is evicted */
	void (*on_evict)(const struct roce_stream_stats *s, void *user);
	void *on_evict_user;
	uint64_t refused;         /* frames no stream took: out of memory, or of addresses (roce_analyzer_refused) */
	struct send_rec *sends;   /* the send log (above) */
	uint32_t send_seq;        /* the newest entry's number */
	struct block_pool req_pool, loss_pool, resp_pool, cong_pool;
	struct block_pool hist_pool;  /* spilled round-trip histograms (struct rtt_hist) */
	struct block_pool rtt_pool;   /* rings of requests waiting for their response (struct rtt_ring) */
	struct cong_state cong;   /* congestion analysis (congestion.h) */
	struct sightings *copies; /* the sightings table (copies.h); NULL: copies not looked for */
	struct path_state *path;  /* path analysis on the sightings (path.h); with copies */
	struct mirror_table mirror;  /* mirror sessions (mirror.h) */
	int64_t copy_window_ns;
	struct loss_block loss_scratch;  /* counts go here when a loss block cannot be had */
	struct found {            /* the frame's findings (roce_findings.f points at f): emptied per
				   * frame, grown when a frame has more than ever before (no allocation
				   * per frame once it holds the most a frame has had) */
		struct roce_finding *f;
		uint32_t alloc;
		uint64_t lost;        /* findings whose details memory could not hold (the event is set) */
		uint64_t count[ROCE_EV_COUNT];  /* findings so far, by event (roce_analyzer_findings) */
	} found;
	/* the arrays new streams fill, published for roce_analyzer_prefault() (prefault.c): the
	 * analysing thread stores, another thread loads, about once a millisecond */
	struct prefault_area pf[PF_AREAS];
	struct prefault_done {    /* the prefaulting thread's own: populated up to here */
		const uint8_t *base;
		size_t upto;
	} pf_done[PF_AREAS];
	bool pf_unsupported;      /* the prefaulting thread's own: the kernel cannot populate */
	struct ahead {            /* roce_analyze_prefetch()'s frames in flight (prefetch.c) */
		struct ahead_rec {
			uint8_t addrs[32];  /* the frame's source and destination address */
			uint64_t pair;    /* a new stream's: its requests' host pair (pairs map), 0: none */
			uint32_t hash;    /* its stream's hash (stream_hash.h) */
			uint8_t len;      /* the addresses' length, 0: no stream */
			uint32_t idx;     /* its stream's index, found a stage later (NO_IDX: none) */
			uint32_t peer;    /* a response's request stream, found a stage later */
			bool response;
		} rec[AHEAD_RING];
		struct ahead_ids {    /* a new stream's address ids, as stage 2 found them, for
				       * roce_analyze() (checked against the frame's addresses there) */
			uint32_t hash, src, dst;  /* src NO_IDX: none */
		} ids[AHEAD_IDS];
		uint32_t n;           /* frames seen */
	} ahead;
};

bool finding_grow(struct roce_analyzer *a, struct roce_findings *out);

/* The frame gets event e, counted; out, when there is one, the details: a pointer to them is
 * returned (NULL without out, or out of memory), zeroed but for qpn (delta_ns and priority -1),
 * for more; it is valid until the next finding_add(). */
static inline struct roce_finding *finding_add(struct roce_analyzer *a, struct roce_pkt *p, struct roce_findings *out,
					       enum roce_event e, uint32_t qpn)
{
	roce_evset_add(&p->events, e);
	a->found.count[e]++;
	if (!out || (out->n >= a->found.alloc && !finding_grow(a, out)))
		return NULL;
	struct roce_finding *x = &a->found.f[out->n++];
	*x = (struct roce_finding){.event = (uint16_t)e, .qpn = qpn, .delta_ns = -1, .priority = -1};
	return x;
}

#endif
