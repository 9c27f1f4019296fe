/* findings.c: a frame's event as the CLI's text line and the Wireshark plugin's expert info both
 * show it: its name; for a decoder event that names a field, the field and its value,
 * "bth.reserved_nonzero(resv7 0x01)"; for a transport finding its details,
 * "psn.gap(expected 100 seen 103)". */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

#include "roce/analyze.h"
#include "roce/fields.h"

/* The reserved BTH (and RDETH) fields that are not zero: "(resv6 0x01, rdeth.resv 0x02)". */
static int reserved_fields(char *buf, size_t cap, const struct roce_pkt *p)
{
	const struct { const char *name; unsigned v; } f[] = {
		{"resv6", p->h.bth.resv6}, {"resv7", p->h.bth.resv7},
		{"rdeth.resv", p->h.hdrs & ROCE_HDR_RDETH ? p->h.rdeth.resv : 0u},
	};
	const char *sep = "(";
	int n = 0;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		if (f[i].v) {
			size_t at = (size_t)n < cap ? (size_t)n : cap;
			int k = snprintf(buf + at, cap - at, "%s%s 0x%02x", sep, f[i].name, f[i].v);
			n += k > 0 ? k : 0;
			sep = ", ";
		}
	}
	if (*sep == ',') {
		size_t at = (size_t)n < cap ? (size_t)n : cap;
		int k = snprintf(buf + at, cap - at, ")");
		n += k > 0 ? k : 0;
	}
	return n;
}

/* Append to buf at *n (snprintf's way: *n counts what would have been written). */
static void put(char *buf, size_t cap, int *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t cap, int *n, const char *fmt, ...)
{
	va_list ap;
	size_t at = (size_t)*n < cap ? (size_t)*n : cap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + at, cap - at, fmt, ap);
	va_end(ap);
	*n += k > 0 ? k : 0;
}

/* One congestion finding's details: "p3 65535q", "p3 after 1.234ms", "ce frame 12, qp 0x000011,
 * 1.002ms later". */
static void put_congestion(char *buf, size_t cap, int *n, const struct roce_finding *x)
{
	char d[ROCE_DURSTR_MAX];
	if (x->event == ROCE_EV_CNP_MISSING || x->event == ROCE_EV_CNP_UNEXPECTED) {
		if (x->event == ROCE_EV_CNP_MISSING)
			put(buf, cap, n, "ce frame %" PRIu64 ", ", x->ref_frame);
		put(buf, cap, n, "qp 0x%06" PRIx32, x->qpn);
		if (x->delta_ns >= 0) {
			roce_fmt_duration(d, (double)x->delta_ns);
			put(buf, cap, n, ", %s later", d);
		}
		if (x->event == ROCE_EV_CNP_UNEXPECTED)
			put(buf, cap, n, ", no CE mark before it, one direction captured?");
		return;
	}
	if (x->priority < 0)
		put(buf, cap, n, "all");
	else
		put(buf, cap, n, "p%d", x->priority);
	if (x->event == ROCE_EV_PFC_PAUSE)
		put(buf, cap, n, " %uq", x->quanta);
	if (x->event == ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED && x->pause)
		put(buf, cap, n, " by PAUSE");
	if (x->delta_ns >= 0) {
		roce_fmt_duration(d, (double)x->delta_ns);
		put(buf, cap, n, x->event == ROCE_EV_PFC_RESUME ? " after %s%s" : " %s into the pause%s", d,
		    x->expired ? " expired" : "");
	}
}

bool roce_event_is_congestion(enum roce_event e)
{
	switch (e) {
	case ROCE_EV_PFC_PAUSE:
	case ROCE_EV_PFC_RESUME:
	case ROCE_EV_PFC_STORM:
	case ROCE_EV_PFC_TRAFFIC_WHILE_PAUSED:
	case ROCE_EV_CNP_MISSING:
	case ROCE_EV_CNP_UNEXPECTED:
		return true;
	default:
		return false;
	}
}

/* What a finding says of the frame it refers to, and its closing parenthesis: a timeout where the
 * resent PSN was first sent (and whether an ACK of it came before), a copy its first sighting, a
 * restart the NAK it answers, a spurious resend the resend. */
static const char *ref_text(const struct roce_finding *x)
{
	static _Thread_local char t[96];
	const char *what = x->event == ROCE_EV_RETRANSMIT_TIMEOUT ? " in frame " :
			   x->event == ROCE_EV_FRAME_COPY ? ", copy of frame " :
			   x->event == ROCE_EV_NAK_RESTART_WRONG ? ", NAK in frame " :
			   x->event == ROCE_EV_RNR_RETRY_EARLY ? ", RNR NAK in frame " :
			   x->event == ROCE_EV_RETRANSMIT_SPURIOUS ? ", resend in frame " : NULL;
	const char *end = x->acked_before ? ", ACKed before it, not counted lost)" :
			  x->at_mirror ? ", lost at the mirror)" : ")";
	if (!x->ref_frame || !what)  /* psn.retransmit: the JSON has it */
		return end;
	snprintf(t, sizeof(t), "%s%" PRIu64 "%s", what, x->ref_frame, end);
	return t;
}

size_t roce_event_text(char *buf, size_t cap, enum roce_event e, const struct roce_pkt *p,
		       const struct roce_findings *fi)
{
	return roce_event_text_n(buf, cap, e, p, fi, 2);
}

size_t roce_event_text_n(char *buf, size_t cap, enum roce_event e, const struct roce_pkt *p,
			 const struct roce_findings *fi, unsigned max_shown)
{
	int n = snprintf(buf, cap, "%s", roce_event_name(e));
	if (n >= 0 && e == ROCE_EV_BTH_RESERVED_NONZERO && p) {
		size_t at = (size_t)n < cap ? (size_t)n : cap;
		n += reserved_fields(buf + at, cap - at, p);
	}
	if (roce_event_is_congestion(e)) {
		/* the first max_shown findings of the event (0: all), "; " between them, and how many
		 * more (the JSON has them all; an expert info's text has 240 bytes in all) */
		const char *sep = "(";
		unsigned shown = 0, more = 0;
		for (unsigned i = 0; fi && i < fi->n; i++) {
			if (fi->f[i].event != e)
				continue;
			if (max_shown && shown == max_shown) {
				more++;
				continue;
			}
			put(buf, cap, &n, "%s", sep);
			put_congestion(buf, cap, &n, &fi->f[i]);
			sep = "; ";
			shown++;
		}
		if (more)
			put(buf, cap, &n, "; +%u more", more);
		if (shown)
			put(buf, cap, &n, ")");
		return n > 0 ? (size_t)n : 0;
	}
	for (unsigned i = 0; fi && i < fi->n && n >= 0; i++) {
		const struct roce_finding *x = &fi->f[i];
		if (x->event != e || !x->has_psn)
			continue;
		size_t at = (size_t)n < cap ? (size_t)n : cap;
		int k;
		if (x->msn)
			k = snprintf(buf + at, cap - at, "(expected msn %" PRIu32 " seen %" PRIu32, x->expected_psn, x->seen_psn);
		else if (x->expected_psn != x->seen_psn)
			k = snprintf(buf + at, cap - at, "(expected %" PRIu32 " seen %" PRIu32, x->expected_psn, x->seen_psn);
		else
			k = snprintf(buf + at, cap - at, "(psn %" PRIu32, x->seen_psn);
		n += k > 0 ? k : 0;
		at = (size_t)n < cap ? (size_t)n : cap;
		if (e == ROCE_EV_RETRANSMIT_RETRY_EXCEEDED) {
			k = snprintf(buf + at, cap - at, ", resent %u times, %u seen, %u inferred",
				     (unsigned)x->resends_seen + x->resends_inferred, (unsigned)x->resends_seen,
				     (unsigned)x->resends_inferred);
			n += k > 0 ? k : 0;
			at = (size_t)n < cap ? (size_t)n : cap;
		}
		if (e == ROCE_EV_PATH_LOST) {
			k = snprintf(buf + at, cap - at, ", lost between point %u and point %u", (unsigned)x->path_from,
				     (unsigned)x->path_to);
			n += k > 0 ? k : 0;
			at = (size_t)n < cap ? (size_t)n : cap;
		}
		if (e == ROCE_EV_MIRROR_GAP) {
			k = snprintf(buf + at, cap - at, ", %" PRIu32 " lost", x->seen_psn - x->expected_psn);
			n += k > 0 ? k : 0;
			at = (size_t)n < cap ? (size_t)n : cap;
		}
		if (e == ROCE_EV_RETRANSMIT_TIMEOUT && x->delta_ns >= 0) {
			k = snprintf(buf + at, cap - at, ", first sent %" PRId64 ".%03" PRId64 " ms before",
				     x->delta_ns / 1000000, x->delta_ns / 1000 % 1000);
			n += k > 0 ? k : 0;
			at = (size_t)n < cap ? (size_t)n : cap;
		}
		k = snprintf(buf + at, cap - at, "%s", ref_text(x));
		n += k > 0 ? k : 0;
		break;
	}
	return n > 0 ? (size_t)n : 0;
}
