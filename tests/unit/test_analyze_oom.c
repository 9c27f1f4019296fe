/* test_analyze_oom.c: the transport analyzer when memory runs out (analyzer/core/stream_table.c).
 *
 * Its tables grow as streams come (the cores, their ids, the stream map, the side blocks), each
 * growth a new mapping that may fail. Under an address-space limit a little above what the
 * process holds, new queue pairs keep coming until growing fails. Then: no crash; frames of
 * streams that could not be made get no stream (stream id 0), and roce_analyzer_refused() counts
 * them (rocedump warns with it); the streams already there go on
 * being analysed; every stream the table lists is one that frames made (no row half made, with no
 * packets: the map must have room before an entry is taken); the analyzer frees cleanly. The
 * sanitizers reserve address space of their own as they go, so the test runs in the plain build
 * only. */
#include <criterion/criterion.h>
#include <sys/resource.h>

#include "unit_util.h"

#define FIRST_QPS 1000u         /* streams made before the limit */
#define MAX_NEW_QPS 3000000u    /* far more than the limit leaves room for */
#define REFUSED 2000u           /* new streams refused before the checks */

static uint8_t frame[FRAME_CAP];
static int64_t now = INT64_C(1700000000000000000);
static uint64_t number;
static uint32_t max_made;  /* the most new streams any run made */

/* A SEND_ONLY asking for an ACK to 10.0.0.2, QP qpn, at psn, from src (an IPv4 address, 0 for
 * 10.0.0.1): its stream id. */
static uint32_t send_from(struct roce_analyzer *a, uint32_t src, uint32_t qpn, uint32_t psn, struct roce_findings *out)
{
	struct roce_build b;
	u_base(&b);
	if (src) {
		u_put_be16(b.src, (uint16_t)(src >> 16));
		u_put_be16(b.src + 2, (uint16_t)src);
	}
	b.h.bth.dqpn = qpn;
	b.h.bth.psn = psn;
	b.h.bth.ackreq = 1;
	b.payload = u_payload();
	b.payload_len = 32;
	uint32_t len = u_build(&b, frame);
	struct roce_pkt p;
	cr_assert_eq(u_decode(frame, len, ROCE_LINK_ETHERNET, &p), 1);
	now += 1000;
	roce_analyze(a, &p, ++number, frame, now, out);
	return out->stream;
}

static uint32_t send_only(struct roce_analyzer *a, uint32_t qpn, uint32_t psn, struct roce_findings *out)
{
	return send_from(a, 0, qpn, psn, out);
}

/* From 11.0.0.0 + i, none of them the destination. */
static uint32_t from_source(struct roce_analyzer *a, uint32_t i, uint32_t qpn, struct roce_findings *out)
{
	return send_from(a, UINT32_C(11) << 24 | i, qpn, 100, out);
}

static bool has_event(const struct roce_findings *out, enum roce_event e)
{
	for (unsigned i = 0; i < out->n; i++)
		if (out->f[i].event == e)
			return true;
	return false;
}

struct rows {
	uint64_t n, empty;
};

static void count_row(const struct roce_stream_stats *s, void *user)
{
	struct rows *r = user;
	r->n++;
	if (!s->packets)
		r->empty++;
}

/* One analyzer: FIRST_QPS streams, then new ones under a limit headroom bytes above the process's
 * address space, until memory has run out for a while; then the checks above. */
static void run_out(size_t headroom)
{
	char err[ROCE_ERRBUF_SIZE] = "";
	struct roce_analyzer *a = roce_analyzer_new(NULL, err);
	cr_assert_not_null(a, "roce_analyzer_new: %s", err);
	static struct roce_findings out;

	for (uint32_t q = 1; q <= FIRST_QPS; q++)
		cr_assert_neq(send_only(a, q, 100, &out), 0, "QP %u made before the limit", q);
	cr_assert_eq(roce_analyzer_streams(a), FIRST_QPS);

	struct rlimit old;
	cr_assert_eq(getrlimit(RLIMIT_AS, &old), 0);
	struct rlimit lim = {(rlim_t)u_status_kib("VmSize") * 1024 + headroom, old.rlim_max};
	cr_assert_eq(setrlimit(RLIMIT_AS, &lim), 0);

	/* new QPs until one finds no room, then a while longer (each growth fails anew) */
	uint32_t made = 0, refused = 0;
	for (uint32_t q = FIRST_QPS + 1; q <= FIRST_QPS + MAX_NEW_QPS && refused < REFUSED; q++) {
		if (send_only(a, q, 100, &out))
			made++;
		else
			refused++;
	}
	uint64_t streams = roce_analyzer_streams(a);
	setrlimit(RLIMIT_AS, &old);  /* Criterion's own reporting needs memory again */
	cr_assert_eq(roce_analyzer_refused(a), refused, "%zu MiB: frames refused %llu, counted %u", headroom >> 20,
		     (unsigned long long)roce_analyzer_refused(a), refused);

	size_t mib = headroom >> 20;
	cr_assert_gt(refused, 0, "%zu MiB: memory never ran out: %u new streams made", mib, made);
	cr_assert_eq(streams, FIRST_QPS + made, "%zu MiB: the table holds every stream made, no other: %llu of %u",
		     mib, (unsigned long long)streams, FIRST_QPS + made);
	struct rows rows = {0, 0};
	roce_analyzer_foreach(a, count_row, &rows);
	cr_assert_eq(rows.n, streams, "%zu MiB: rows listed %llu, streams %llu", mib, (unsigned long long)rows.n,
		     (unsigned long long)streams);
	cr_assert_eq(rows.empty, 0, "%zu MiB: %llu rows of streams half made (no packets)", mib,
		     (unsigned long long)rows.empty);

	/* a stream made before the limit is still analysed: its next PSN, then a gap */
	cr_assert_neq(send_only(a, 7, 101, &out), 0);
	cr_assert(!has_event(&out, ROCE_EV_PSN_GAP));
	cr_assert_neq(send_only(a, 7, 105, &out), 0);
	cr_assert(has_event(&out, ROCE_EV_PSN_GAP), "%zu MiB: the gap on QP 7 found after memory ran out", mib);
	roce_analyzer_free(a);
	max_made = made > max_made ? made : max_made;
}

/* Memory runs out at a different growth for each headroom: the cores', the ids', the map's, a
 * side block pool's. */
Test(analyze_oom, streams_stop_and_the_rest_goes_on)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	cr_skip_test("the sanitizers reserve address space as they go");
#endif
	for (size_t mib = 1; mib <= 40; mib++)
		run_out(mib << 20);
	cr_assert_gt(max_made, 50000u, "the largest headroom held streams before running out");
}

/* Addresses are interned for good, at most 2^20 of them (stream.h, ADDR_BITS): a capture with
 * more distinct ones (a scan, a long capture of a large fabric) has frames whose streams cannot be
 * made. They are counted, and a stream whose addresses are known is still made and analysed. */
Test(analyze_oom, addresses_run_out)
{
	char err[ROCE_ERRBUF_SIZE] = "";
	struct roce_analyzer_config cfg;
	roce_analyzer_config_init(&cfg);
	cfg.max_streams = 1000;  /* streams come and go; addresses stay */
	struct roce_analyzer *a = roce_analyzer_new(&cfg, err);
	cr_assert_not_null(a, "roce_analyzer_new: %s", err);
	static struct roce_findings out;
	const uint32_t extra = 100, sources = (1u << 20) - 1 + extra;  /* the destination is one more */
	uint32_t refused = 0;
	for (uint32_t i = 0; i < sources; i++)
		refused += !from_source(a, i, 0x123, &out);
	cr_assert_eq(refused, extra, "frames with no stream: %u", refused);
	cr_assert_eq(roce_analyzer_refused(a), extra);
	cr_assert_eq(from_source(a, sources - 1, 0x124, &out), 0, "a source never interned: still no stream");
	cr_assert_neq(from_source(a, 5, 0x777, &out), 0, "a known source, a new QP: a new stream");
	cr_assert_eq(roce_analyzer_refused(a), extra + 1);
	roce_analyzer_free(a);
}
