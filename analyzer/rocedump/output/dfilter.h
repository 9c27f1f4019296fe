/* dfilter.h: rocedump -Y, a display filter in tshark's manner over a frame's decoded fields (the
 * one field table, include/roce/fields.def, by their dotted JSON names) and its events, checked
 * after the decode and the transport analysis.
 *
 *   expr    := or
 *   or      := and { ("or" | "||") and }
 *   and     := not { ("and" | "&&") not }
 *   not     := ("not" | "!") not | primary
 *   primary := "(" expr ")"
 *            | "event" [ ("==" | "!=") ] NAME-OR-GLOB   a frame with (without) such an event
 *            | "event"                                  a frame with any event
 *            | FIELD OP VALUE                           OP: == != < <= > >= (eq ne lt le gt ge)
 *            | FIELD                                    the frame has the field (or a field
 *                                                       under that path: roce.reth)
 *            | EVENT-NAME                               "psn.retransmit" or "roce.psn.retransmit",
 *                                                       as the Wireshark plugin's expert info names it
 * VALUE: a number (decimal or 0x hex), a "string", or a bare word (an address, a name). Addresses
 * compare as addresses (::1 and 0:0::1 are one). A comparison on a field the frame lacks is false,
 * != included (as in Wireshark); on an array (the VLAN tags, pfc.quanta, pfc.enabled) any element
 * matching makes it true (!=: none). A name that is both an event and a field (pfc.malformed)
 * tested alone is the event. */
#ifndef ROCEDUMP_DFILTER_H
#define ROCEDUMP_DFILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "roce/events.h"
#include "roce/fields.h"

struct dfilter;

/* How deep '(' and 'not' may nest: deeper is refused (a compile error), so that no expression can
 * run the parser or the evaluation out of stack. Chains of and/or are as long as one likes. */
#define DFILTER_MAX_DEPTH 256u

/* Compile expr; NULL with "column N: what is wrong" in err on a syntax error or an unknown name
 * (or "out of memory"). */
struct dfilter *dfilter_compile(const char *expr, char *err, size_t errlen);
/* Whether the frame (its fields and its events, the analyzer's included) passes. */
bool dfilter_match(const struct dfilter *df, const struct roce_field_src *src, const struct roce_evset *events);
void dfilter_free(struct dfilter *df);

#endif
