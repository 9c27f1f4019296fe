/* print.h: per-frame output of rocedump: one text line (tcpdump style) or one JSON object
 * (JSON Lines; schema in docs/reading-output.md "JSON output"). */
#ifndef ROCEDUMP_PRINT_H
#define ROCEDUMP_PRINT_H

#include <stdint.h>
#include <stdio.h>

#include "output/fmt.h"
#include "input/input.h"
#include "roce/analyze.h"
#include "roce/decode.h"
#include "output/sb.h"

struct print_opts {
	int verbose;     /* -v count */
	bool link;       /* -e */
	enum ts_style ts_style;  /* -t count */
	bool nano;       /* --nano: 9 digits of fraction */
	int hex;         /* -x count (or -X's): 1 the frame past its link-layer header, 2 all of it */
	bool ascii;      /* -X: the hex dump with its ASCII column */
	bool number;     /* -#: the frame's number first */
	struct ts_clock *clock;  /* the delta styles' reference (the printer moves it) */
	uint64_t link_bps;  /* --link-speed: -v prints what a PFC/PAUSE frame's quanta last */
	const char *const *files;  /* several files merged: their names (struct frame's file); else NULL */
};

/* The fields' view of frame f (decoded into p), numbered frame_no: with several files, its file. */
static inline struct roce_field_src print_field_src(const struct print_opts *o, uint64_t frame_no, const struct frame *f,
						    const struct roce_pkt *p)
{
	return (struct roce_field_src){.data = f->data, .p = p, .frame_no = frame_no, .ts_sec = f->ts_sec,
				       .ts_nsec = f->ts_nsec, .iface_name = f->iface_name,
				       .file_name = o->files ? o->files[f->file] : NULL,
				       .file = o->files ? f->file : 0, .file_frame = o->files ? f->file_number : 0};
}

/* fi: the transport analyzer's findings on the frame (details of its transport events), or NULL */
void print_text(struct sb *s, const struct print_opts *o, uint64_t frame_no, const struct frame *f,
		const struct roce_pkt *p, const struct roce_findings *fi);
/* The frame's events as the text line shows them between its brackets: "name(details),name";
 * a congestion event's first 2 findings and "+N more", or, all true (-vv), all of them. */
void print_events(struct sb *s, const struct roce_pkt *p, const struct roce_findings *fi, bool all);
/* -x/-X: the frame's bytes after its line, 16 a line as tcpdump prints them; written to out as
 * the builder fills. */
void print_hex(struct sb *s, FILE *out, const struct print_opts *o, const struct frame *f, const struct roce_pkt *p);
/* A MAC control frame (PFC, PAUSE or another opcode) as its text line shows it, "PFC XOFF p3
 * 65535q p5 XON"; -v adds what the quanta last at the link speed. */
void print_macc_text(struct sb *s, const struct print_opts *o, const struct roce_pkt *p);
/* A MAD on QP1 (RDMA-CM messages by name, with their key fields), appended to the text line
 * after the RoCE fields; nothing for other frames (print_mad.c). In JSON the "mad" and "cm"
 * members come from the field table (fields.def). */
void print_mad_text(struct sb *s, const struct print_opts *o, const struct frame *f, const struct roce_pkt *p);
/* frame_no: print_text's is -#'s count (after the filter, as tcpdump's); print_json's is the
 * frame's number in the file (f->number, tshark's frame.number). */
void print_json(struct sb *s, const struct print_opts *o, uint64_t frame_no, const struct frame *f,
		const struct roce_pkt *p, const struct roce_findings *fi);

#endif
