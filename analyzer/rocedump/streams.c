/* streams.c: the per-stream summary (see streams.h). Rows come in least-recently-used order
 * first, i.e. roughly the order the streams went quiet. */
#include "streams.h"

#include <inttypes.h>

#include "congestion_out.h"
#include "fmt.h"

static const char *paired_name(unsigned p)
{
	return p == ROCE_PAIRED_CM ? "cm" : p == ROCE_PAIRED_PSN ? "psn" : "-";
}

/* The listing's numbers: 0, 1, ... a row or two (a pair) at a time. */
struct listing {
	FILE *out;
	const char *sep;          /* JSON: before the next row */
	uint32_t last_pair, n;    /* the previous row's pair id; the number of the previous row */
	bool any;
	bool (*keep)(const struct roce_stream_stats *s, void *user);  /* JSON: the rows to print */
	void *user;
};

static uint32_t listing_number(struct listing *l, const struct roce_stream_stats *s)
{
	if (l->any && s->pair == l->last_pair)
		return l->n;
	l->n = l->any ? l->n + 1 : 0;
	l->any = true;
	l->last_pair = s->pair;
	return l->n;
}

static void text_row(const struct roce_stream_stats *s, void *user)
{
	struct listing *l = user;
	FILE *out = l->out;
	uint32_t number = listing_number(l, s);
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX], psns[40] = "-", rtt[64] = "-", kinds[64];

	if (s->rtt_count)
		snprintf(rtt, sizeof(rtt), "%" PRIu32 "/%" PRIu32 "/%" PRIu32 "/%" PRIu32 " (%" PRIu64 ")", s->rtt_min_us,
			 s->rtt_p50_us, s->rtt_p99_us, s->rtt_max_us, s->rtt_count);
	fmt_ip(src, s->src, s->addr_len);
	fmt_ip(dst, s->dst, s->addr_len);
	snprintf(kinds, sizeof(kinds), "%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64, s->messages_send,
		 s->messages_write, s->messages_read, s->messages_atomic, s->messages_other);
	if (s->has_psn)
		snprintf(psns, sizeof(psns), "%" PRIu32 "-%" PRIu32, s->first_psn, s->last_psn);
	char peer[16] = "-";
	if (s->paired)
		snprintf(peer, sizeof(peer), "0x%06" PRIx32 "/%s", s->peer_qpn, paired_name(s->paired));
	fprintf(out, "%4" PRIu32 " %-15s > %-15s 0x%06" PRIx32 " %-12s %-3s %5" PRIu32 " %8" PRIu64 " %10" PRIu64 " %7" PRIu64
		     " %7" PRIu64 " %7" PRIu64 " %-13s %-17s %5" PRIu64 "/%-6" PRIu64 " %6" PRIu64 " %4" PRIu64 " %5" PRIu64
		     " %" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 "/%" PRIu64 " %4" PRIu64 " %s\n",
		number, src, dst, s->dqpn, peer, s->requests ? roce_transport_name((enum roce_transport)s->transport) : "-",
		s->pmtu, s->packets, s->bytes, s->requests, s->responses, s->messages, kinds, psns, s->gaps,
		s->missing_psns, s->retransmits, s->out_of_order, s->timeouts, s->naks[0], s->naks[1], s->naks[2],
		s->naks[3], s->naks[4], s->rnr_naks, rtt);
}

/* The congestion table after the stream table: its rows numbered alike; headed at its first row. */
static void congestion_row(const struct roce_stream_stats *s, void *user)
{
	struct listing *l = user;
	uint32_t number = listing_number(l, s);
	if (!congestion_stream_has(s))
		return;
	if (!l->sep) {
		congestion_stream_text_header(l->out);
		l->sep = "";
	}
	congestion_stream_text_row(l->out, number, s);
}

void streams_print_text(const struct roce_analyzer *a, const struct capstats *cs, FILE *out)
{
	char drops[160];
	capstats_describe(cs, drops, sizeof(drops));
	fprintf(out, "streams: %" PRIu64 " (evicted %" PRIu64 "); %s\n", roce_analyzer_streams(a),
		roce_analyzer_evictions(a), drops);
	fprintf(out, "%4s %-15s   %-15s %-8s %-12s %-3s %5s %8s %10s %7s %7s %7s %-13s %-17s %12s %6s %4s %5s %9s %4s %s\n",
		"pair", "source", "destination", "qp", "peer/paired", "tr", "pmtu", "packets", "bytes", "reqs", "resps", "msgs",
		"s/w/r/a/other", "psn range",
		"gaps/missing", "retx", "ooo", "tmout", "naks0-4", "rnr", "rtt us min/p50/p99/max (n)");
	struct listing l = {.out = out};
	roce_analyzer_foreach(a, text_row, &l);
	struct listing c = {.out = out};
	roce_analyzer_foreach(a, congestion_row, &c);
}

static void json_row(const struct roce_stream_stats *s, void *user)
{
	struct listing *j = user;
	uint32_t number = listing_number(j, s);
	char src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX];

	if (j->keep && !j->keep(s, j->user))
		return;
	fmt_ip(src, s->src, s->addr_len);
	fmt_ip(dst, s->dst, s->addr_len);
	char peer[16] = "null";  /* unpaired */
	if (s->paired)
		snprintf(peer, sizeof(peer), "%" PRIu32, s->peer_qpn);
	fprintf(j->out, "%s{\"pair\":%" PRIu32 ",\"src\":\"%s\",\"dst\":\"%s\",\"dqpn\":%" PRIu32 ",\"paired\":\"%s\",\"peer_qpn\":%s"
		",\"transport\":%s%s%s,\"pmtu\":%" PRIu32
		     ",\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"requests\":%" PRIu64 ",\"responses\":%" PRIu64
		     ",\"messages\":%" PRIu64 ",\"messages_by_op\":{\"send\":%" PRIu64 ",\"write\":%" PRIu64
		     ",\"read\":%" PRIu64 ",\"atomic\":%" PRIu64 ",\"other\":%" PRIu64 "}",
		j->sep, number, src, dst, s->dqpn, s->paired ? paired_name(s->paired) : "none", peer,
		/* of its requests: none for a stream of responses only */
		s->requests ? "\"" : "", s->requests ? roce_transport_name((enum roce_transport)s->transport) : "null",
		s->requests ? "\"" : "",
		s->pmtu, s->packets, s->bytes, s->requests, s->responses, s->messages, s->messages_send, s->messages_write,
		s->messages_read, s->messages_atomic, s->messages_other);
	if (s->has_psn)
		fprintf(j->out, ",\"first_psn\":%" PRIu32 ",\"last_psn\":%" PRIu32, s->first_psn, s->last_psn);
	fprintf(j->out, ",\"gaps\":%" PRIu64 ",\"missing_psns\":%" PRIu64 ",\"retransmits\":%" PRIu64
			",\"out_of_order\":%" PRIu64 ",\"timeouts\":%" PRIu64 ",\"naks\":{\"psn_seq_err\":%" PRIu64
			",\"invalid_request\":%" PRIu64 ",\"remote_access\":%" PRIu64 ",\"remote_op\":%" PRIu64
			",\"invalid_rd\":%" PRIu64 "},\"rnr_naks\":%" PRIu64,
		s->gaps, s->missing_psns, s->retransmits, s->out_of_order, s->timeouts, s->naks[0], s->naks[1],
		s->naks[2], s->naks[3], s->naks[4], s->rnr_naks);
	if (s->rtt_count)
		fprintf(j->out, ",\"rtt_us\":{\"count\":%" PRIu64 ",\"min\":%" PRIu32 ",\"mean\":%" PRIu32 ",\"p50\":%" PRIu32
				",\"p99\":%" PRIu32 ",\"max\":%" PRIu32 "}",
			s->rtt_count, s->rtt_min_us, s->rtt_mean_us, s->rtt_p50_us, s->rtt_p99_us, s->rtt_max_us);
	if (s->recover_count)
		fprintf(j->out, ",\"nak_recovery_us\":{\"count\":%" PRIu64 ",\"mean\":%" PRIu32 ",\"max\":%" PRIu32 "}",
			s->recover_count, s->recover_mean_us, s->recover_max_us);
	if (s->timeout_aged)
		fprintf(j->out, ",\"timeout_age_us\":{\"count\":%" PRIu64 ",\"mean\":%" PRIu32 ",\"max\":%" PRIu32 "}",
			s->timeout_aged, s->timeout_age_mean_us, s->timeout_age_max_us);
	fprintf(j->out, ",\"max_idle_us\":%" PRIu32, s->max_idle_us);
	congestion_stream_json(s, j->out);
	fputs("}", j->out);
	j->sep = ",";
}

void streams_print_json(const struct roce_analyzer *a, const struct capstats *cs, FILE *out)
{
	streams_print_json_some(a, cs, out, NULL, NULL);
}

void streams_print_json_some(const struct roce_analyzer *a, const struct capstats *cs, FILE *out,
			     bool (*keep)(const struct roce_stream_stats *s, void *user), void *user)
{
	struct listing j = {.out = out, .sep = "", .keep = keep, .user = user};
	fprintf(out, "{\"streams\":{\"count\":%" PRIu64 ",\"evicted\":%" PRIu64 ",", roce_analyzer_streams(a),
		roce_analyzer_evictions(a));
	capstats_print_json(cs, out);
	fprintf(out, ",\"rows\":[");
	roce_analyzer_foreach(a, json_row, &j);
	fprintf(out, "]}}\n");
}
