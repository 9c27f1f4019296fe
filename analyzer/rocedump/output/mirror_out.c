/* mirror_out.c: the mirror sessions of the -q summary (see mirror_out.h). */
#include "output/mirror_out.h"

#include <inttypes.h>

#include "output/fmt.h"
#include "roce/mirror.h"

struct mirror_ctx {
	FILE *out;
	const char *sep;
};

static void text_row(const struct roce_mirror_row *r, void *user)
{
	struct mirror_ctx *c = user;
	char name[ROCE_MIRROR_NAME_MAX];
	roce_mirror_point_name(name, sizeof(name), &r->point);
	if (!r->has_seq) {
		fprintf(c->out, "  %-44s %10" PRIu64 "  (no sequence numbers)\n", name, r->frames);
		return;
	}
	fprintf(c->out, "  %-44s %10" PRIu64 " %6" PRIu64 " %8" PRIu64 " %9" PRIu64 " %6" PRIu64 " %9" PRIu64 "\n", name,
		r->frames, r->gaps, r->lost, r->reordered, r->late, r->lost_psns);
}

void mirror_print_text(const struct roce_analyzer *a, const struct capstats *cs, FILE *out)
{
	if (!roce_analyzer_mirror_sessions(a))
		return;
	fprintf(out, "mirror sessions (frames lost by the mirror or on the way to the collector, from its sequence "
		     "numbers)%s:\n", cs && cs->filtered ? ", an upper bound: a filter was applied" : "");
	fprintf(out, "  %-44s %10s %6s %8s %9s %6s %9s\n", "session", "frames", "gaps", "lost", "reordered", "late",
		"lost PSNs");
	struct mirror_ctx c = {out, ""};
	roce_analyzer_mirror_foreach(a, text_row, &c);
	uint64_t untracked = roce_analyzer_mirror_untracked(a);
	if (untracked)
		fprintf(out, "  (%" PRIu64 " frames of sessions past the first %u not followed)\n", untracked,
			ROCE_MIRROR_SESSIONS);
}

static void json_row(const struct roce_mirror_row *r, void *user)
{
	struct mirror_ctx *c = user;
	const struct roce_mirror_point *pt = &r->point;
	char name[ROCE_MIRROR_NAME_MAX], src[FMT_ADDR_MAX], dst[FMT_ADDR_MAX], id[32] = "";
	roce_mirror_point_name(name, sizeof(name), pt);
	fmt_ip(src, pt->src, pt->addr_len);
	fmt_ip(dst, pt->dst, pt->addr_len);
	if (pt->has_id)
		snprintf(id, sizeof(id), ",\"%s\":%" PRIu32,
			 pt->kind == ROCE_WRAP_ERSPAN2 || pt->kind == ROCE_WRAP_ERSPAN3 ? "session_id" : "gre_key", pt->id);
	fprintf(c->out, "%s{\"point\":\"%s\",\"kind\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\"%s,\"sequenced\":%s,"
			"\"frames\":%" PRIu64, c->sep, name, roce_wrap_name((enum roce_wrap_kind)pt->kind), src, dst, id,
		r->has_seq ? "true" : "false", r->frames);
	if (r->has_seq)
		fprintf(c->out, ",\"gaps\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"reordered\":%" PRIu64 ",\"late\":%" PRIu64
				",\"restarts\":%" PRIu64 ",\"lost_psns\":%" PRIu64,
			r->gaps, r->lost, r->reordered, r->late, r->restarts, r->lost_psns);
	fputs("}", c->out);
	c->sep = ",";
}

void mirror_print_json(const struct roce_analyzer *a, const struct capstats *cs, FILE *out)
{
	if (!roce_analyzer_mirror_sessions(a))
		return;
	fprintf(out, ",\"mirror\":{\"upper_bound\":%s,\"untracked\":%" PRIu64 ",\"sessions\":[",
		cs && cs->filtered ? "true" : "false", roce_analyzer_mirror_untracked(a));
	struct mirror_ctx c = {out, ""};
	roce_analyzer_mirror_foreach(a, json_row, &c);
	fputs("]}", out);
}
