/* listing.c: the catalogue as roceconform --list prints it (see listing.h). The markdown form is
 * the reference document: for each test its IBTA rule (compliance statement and section), what it
 * sends, what counts as PASS, FAIL, INCONCLUSIVE and N/A (from the test's kind of verdict, the
 * rules of verdict.c), and the verdict of the DUT an --expect list describes (a listed verdict; N/A
 * for what it is not declared to do; PASS otherwise, as that list's CI run asserts). */
#include "listing.h"

#include <ctype.h>
#include <string.h>

#include "setup.h"

/* What counts as PASS (beyond the title's expected answer), FAIL and INCONCLUSIVE, by kind. */
static const struct {
	const char *pass, *fail, *inconclusive;
} kinds[] = {
	[K_ACK] = {"the acknowledgement with the expected PSN (and MSN), no NAK",
		   "a NAK or RNR NAK, another PSN or MSN, a wrong ICRC, or no acknowledgement from a DUT that shows "
		   "life otherwise", NULL},
	[K_ACKS] = {"acknowledgement PSNs never decrease, the last one the expected PSN (and MSN)",
		    "a NAK, an acknowledgement PSN going backwards, or a last acknowledgement other than the expected",
		    NULL},
	[K_NAK] = {"exactly one NAK of the expected code with a PSN among the packets', no ACK of them",
		   "no NAK (B4: a silent drop, proven as in C), another NAK code or PSN, more than one NAK, or an ACK "
		   "of the packet that must be NAKed", NULL},
	[K_DROP] = {"no answer to it; then the control packet at ePSN + 1 NAKed with PSN sequence error naming ePSN "
		    "(the DUT still expects the dropped packet's PSN)",
		    "an answer to it; an ACK at or past ePSN after the control (the packet was accepted); a NAK PSN "
		    "sequence error naming another PSN (the packet moved ePSN); any other answer to the control",
		    "the control packet at ePSN + 1 not answered either: the drop is not proven"},
	[K_GOBACK] = {"one NAK PSN sequence error naming ePSN, then the resent ePSN and ePSN + 1 both acknowledged",
		      "no NAK, another code or PSN, more than one NAK, or the resent packets not acknowledged", NULL},
	[K_READ] = {"the READ response packets with the expected PSNs, opcodes (FIRST, MIDDLE..., LAST) and byte count",
		    "another opcode, PSN or packet count, a wrong byte count or ICRC", NULL},
	[K_ATOMIC] = {"both ATOMIC ACKs carry the same original value",
		      "the FETCH_ADD or its duplicate not answered, or another value for the duplicate", NULL},
	[K_RETRY] = {"resends of the unacknowledged PSN T (1 - tol) apart on average and at most 4 T (1 + tol) apart "
		     "(T the DUT's ACK timeout), retry_cnt of them, then silence for 1 s or more",
		     "more or fewer retries than retry_cnt, resends before the timeout or later than 4 timeouts",
		     "watched too briefly after the last retry to see the requester stop"},
	[K_RESEND] = {"the first request after the NAK carries the NAKed PSN",
		      "a PSN before it (one the NAK acknowledged) or after it, or no resend", NULL},
	[K_RNR] = {"the resend no earlier than the RNR timer (1 - tol) after the RNR NAK",
		   "an earlier resend, or none (rnr_retry 7 means unlimited)", NULL},
	[K_QUIET] = {"no request for four ACK timeouts (1 + tol) after the ACK", "a request resent", NULL},
	[K_GHOST] = {"the message's first PSN sent again after the ghost ACK left (on the ACK timeout)",
		     "no sending of it captured after the ghost ACK left (one captured before it, read later, does not "
		     "count): the DUT took the ghost ACK as acknowledging its message", NULL},
	[K_FATAL] = {"no request for four ACK timeouts after the NAK, and no answer to the in-order request sent right "
		     "after it (a QP in the error state drops it)",
		     "a request after the NAK, or an answer (ACK, NAK) to that request: the QP is alive, the NAK taken "
		     "as something else such as completing the message", NULL},
	[K_CNP] = {"the Annex A17.9.3 format: DestQP the marked packet's source QP, opcode 0x81, PSN 0, SE 0, M 0, "
		   "the marked packet's P_Key, a good ICRC (BECN 0 is noted in the reason, not failed: receivers "
		   "ignore B and F, CA17-29)",
		   "no CNP from a DUT that shows life otherwise, a CNP to another QP (named), or a CNP with any of those "
		   "fields wrong (each named)", NULL},
	[K_NOCNP] = {"no CNP within 500 ms from a DUT that shows life", "a CNP", NULL},
	[K_PFC] = {"no DUT frame while the PAUSE is refreshed (every half PAUSE, a rate the link speed sets, outside "
		   "the --pps cap) for four ACK timeouts, a resend after XON",
		   "a DUT frame during the PAUSE (also what a switch or a Linux bridge between tester and DUT gives: "
		   "G1 needs a direct link)", "nothing after XON either: the pause's effect is not proven"},
	[K_HDR] = {"the field as stated on every packet the DUT sends to the tester's QP in an exchange of two probes "
		   "(its ACKs; on rc-pingpong its own SEND too); H5: one source port on all of them (other QPs' ports: "
		   "H6); H2 over IPv6: N/A (no DF bit)",
		   "any DUT packet with another value (the first such packet named); H5: a source port that changes "
		   "within the QP", "H5: only one DUT packet to compare"},
	[K_CMPSWAP] = {"the CMP_SWAP's ATOMIC_ACK carries the value a FETCH_ADD of 0 read before it, and a FETCH_ADD of "
		       "0 after it reads the swap value (compare equal) or the unchanged value (unequal)",
		       "a NAK, a missing ATOMIC_ACK, another original value, or memory swapped when it must not be "
		       "(or not swapped when it must)", NULL},
	[K_SEGS] = {"the READ response packets with the expected PSNs, opcodes (FIRST, MIDDLE, LAST) and byte count, each carrying exactly the PMTU the QP came up with",
		    "another opcode, PSN or packet count, a wrong byte count or ICRC, or a packet of another size than "
		    "the PMTU", NULL},
	[K_CNPS] = {"at least one CNP to the tester's QP, in the A17.9.3 format, and no more CNPs than marked packets; "
		    "how many and over how long is a note (the DUT declares no CNP interval: informational)",
		    "no CNP from a DUT that shows life, a CNP to another QP or with a field wrong, or more CNPs than "
		    "marked packets", NULL},
	[K_V1] = {"an ACK with the request's PSN, no NAK",
		  "a NAK, or no ACK from a DUT whose QP is on a RoCEv1 GID", NULL},
	[K_SPREAD] = {"more than one UDP source port among the DUT's QPs of the run (each test brings up its own QP: "
		      "the source port of each QP's first packet to the tester); how many ports for how many QPs is "
		      "a note (two QPs may hash to one port)",
		      "every QP (two or more DUT QPNs) on one source port: no entropy for ECMP",
		      "fewer than two DUT QPs seen in the run (H6 run alone)"},
	[K_UCACK] = {"no ACK or NAK within 300 ms after the DUT's own SEND (its server sends once our message completed a "
		     "receive)", "an ACK or NAK (UC never acknowledges)",
		     "the DUT's SEND did not come: the delivery is not shown"},
	[K_UCGAP] = {"no ACK or NAK, no SEND of the DUT's within 1.5 s of the broken message, the DUT's SEND after the "
		     "control SEND_ONLY", "an ACK or NAK, or the DUT's SEND after the broken message (it was delivered)",
		     "no SEND of the DUT's after the control either: the drop cannot be told"},
	[K_QKEYDROP] = {"no response and no SEND of the DUT's within 1.5 s of the wrong Q_Key, the DUT's SEND after the "
			"control with the QP's Q_Key", "a response, or the DUT's SEND after the wrong Q_Key (it was delivered)",
			"no SEND of the DUT's after the control either: the drop cannot be told"},
	[K_QKEYOK] = {"the DUT's own SEND within 1.5 s (its server sends once our datagram completed a receive), no "
		      "response", "a response, or no SEND of the DUT's (not delivered)", NULL},
	[K_UDGRH] = {"no response; the DUT's own SEND (sent from byte 40 of the buffer our datagram was received into) "
		     "starts with our 128 bytes", "a response, or our bytes shifted (named: the room the DUT left before "
		     "the payload) or absent in the DUT's SEND", "no SEND of the DUT's, or one shorter than our datagram"},
	[K_ISOL] = {"on QP b an ACK of its SEND, no NAK and no request of the DUT's sent twice (QP a's NAKs are evidence)",
		    "a NAK or RNR NAK on QP b, a request the DUT resent on QP b, or QP b's SEND not acknowledged while "
		    "QP a was answered", "nothing from the DUT on either QP, or the second server did not come up"},
	[K_RATE] = {"the rate of the DUT's packets over the 32 after the CNPs more than 20 % below the rate over the 32 "
		    "before them (packets per second, first to last packet of each window)",
		    "the rate after the CNPs not more than 20 % below the rate before",
		    "the DUT's SEND shorter than 32 + 32 packets (--recv-size), or a window of fewer than two packets"},
	[K_REREAD] = {"the first READ request after the responses starts at the withheld response's PSN (or an earlier "
		      "PSN of the READ), its VA and length moved on by the bytes before that PSN",
		      "no READ request within 2 s (or 12 ACK timeouts), one that skips the withheld response, or a RETH "
		      "that does not match its PSN", NULL},
	[K_NONE] = {NULL, NULL, NULL},
};

/* The setups this version brings up, for the N/A column. */
static const struct setup_method *const setups[] = {
	&setup_rc_pingpong, &setup_perftest_write, &setup_perftest_read, &setup_perftest_atomic, &setup_uc_pingpong,
	&setup_ud_pingpong, &setup_rdma_cm,
};

const char *ibta_ref(const struct conf_test *t, char *buf, size_t n)
{
	if (t->ibta_id)
		snprintf(buf, n, "%s; %s", t->ibta_id, t->ibta_section);
	else if (t->ibta_section)
		snprintf(buf, n, "%s (no ID confirmed)", t->ibta_section);
	else
		snprintf(buf, n, "not an IBTA rule");
	return buf;
}

void list_text(FILE *f)
{
	char ref[160];
	for (size_t i = 0; i < conf_n_tests; i++)
		fprintf(f, "%-4s %s [%s]\n", conf_tests[i].id, conf_tests[i].title, ibta_ref(&conf_tests[i], ref, sizeof(ref)));
}

/* When test t is N/A: the setups that cannot run it, the declarations it needs. */
static void na_text(const struct conf_test *t, char *buf, size_t n)
{
	unsigned need = t->needs & ~(NEED_ECN | NEED_PFC | NEED_CC);
	char ok[160] = "";
	for (size_t i = 0; i < sizeof(setups) / sizeof(setups[0]); i++)
		if (!(need & ~setups[i]->caps)) {
			size_t l = strlen(ok);
			snprintf(ok + l, sizeof(ok) - l, "%s%s", l ? ", " : "", setups[i]->name);
		}
	if (t->kind == K_V1) {
		snprintf(buf, n, "always in a live run of this version: no setup brings the DUT's QP up on a RoCEv1 GID "
			 "(Linux rxe has none); a dry run writes its frame");
		return;
	}
	if (t->needs & NEED_TWO_QPS) {
		snprintf(buf, n, "without the DUT agent (--dut-ssh: it starts a second server on the setup's port + 1), "
			 "or with a setup other than rc-pingpong");
		return;
	}
	if (t->needs & NEED_UD_BUF) {
		snprintf(buf, n, "always in this version: no stock server sends the first 40 bytes of a UD receive "
			 "(ibv_ud_pingpong sends from byte 40 on; Q3 checks the payload's place after them)");
		return;
	}
	if (!ok[0]) {
		snprintf(buf, n, "always in this version: no setup brings what it needs");
		return;
	}
	unsigned all = ~0u;   /* what every setup brings */
	for (size_t i = 0; i < sizeof(setups) / sizeof(setups[0]); i++)
		all &= setups[i]->caps;
	bool every = !(need & ~all);
	if (t->needs & NEED_CC)
		snprintf(buf, n, "without --dut-cc (a DUT declared to react to CNPs: RoCE congestion management)%s%s",
			 every ? "" : "; with a setup other than ", every ? "" : ok);
	else if (t->needs & NEED_ECN)
		snprintf(buf, n, "without --ecn (a DUT declared to do ECN -> CNP)%s%s", every ? "" : "; with a setup other than ",
			 every ? "" : ok);
	else if (t->needs & NEED_PFC)
		snprintf(buf, n, "without --pfc PRIO (a DUT declared to do PFC, on a direct link)%s%s", every ? "" : "; with a setup other than ",
			 every ? "" : ok);
	else if (every)
		snprintf(buf, n, "never for want of a setup: every setup runs it");
	else
		snprintf(buf, n, "with a setup other than %s", ok);
	size_t l = strlen(buf);
	if (t->pmtu)
		snprintf(buf + l, n - l, "; when the QP comes up at a smaller PMTU than %u (the DUT's server takes the "
			 "smaller of its own and the tester's)", t->pmtu);
}

/* The verdict the DUT of the --expect list earns on t. */
static void earns(const struct conf_test *t, const struct expect_list *ex, char *buf, size_t n)
{
	const struct expect_entry *e = expect_find(ex, t->id);
	if (e)
		snprintf(buf, n, "%s (known deviation: %s)", verdict_name(e->v), e->reason);
	else if (t->needs & (NEED_ECN | NEED_PFC | NEED_CC))
		snprintf(buf, n, "N/A (not declared to do it)");
	else
		snprintf(buf, n, "PASS");
}

/* The title's two halves: what is sent, and the expected answer (after " -> "). */
static void title_halves(const struct conf_test *t, char *sends, size_t ns, const char **expect)
{
	const char *arrow = strstr(t->title, " -> ");
	size_t len = arrow ? (size_t)(arrow - t->title) : strlen(t->title);
	snprintf(sends, ns, "%.*s", (int)len, t->title);
	*expect = arrow ? arrow + 4 : "";
}

static void md_index(FILE *f, const struct expect_list *ex)
{
	char ref[160], got[400];
	fprintf(f, "| ID | IBTA rule | test |%s\n|---|---|---|%s\n", ex ? " Linux Soft-RoCE |" : "", ex ? "---|" : "");
	for (size_t i = 0; i < conf_n_tests; i++) {
		const struct conf_test *t = &conf_tests[i];
		char anchor[16];
		size_t k = 0;
		for (; t->id[k] && k + 1 < sizeof(anchor); k++)   /* a heading's anchor is its text in lower case */
			anchor[k] = (char)tolower((unsigned char)t->id[k]);
		anchor[k] = 0;
		fprintf(f, "| [%s](#%s) | %s | %s |", t->id, anchor, ibta_ref(t, ref, sizeof(ref)), t->title);
		if (ex) {
			earns(t, ex, got, sizeof(got));
			fprintf(f, " %.*s |", (int)strcspn(got, " "), got);
		}
		fprintf(f, "\n");
	}
}

static void md_test(FILE *f, const struct conf_test *t, const struct expect_list *ex)
{
	char ref[160], sends[200], na[300], got[400];
	const char *expect;
	title_halves(t, sends, sizeof(sends), &expect);
	fprintf(f, "\n### %s\n\n%s\n\n", t->id, t->title);
	fprintf(f, "- **IBTA rule**: %s\n", ibta_ref(t, ref, sizeof(ref)));
	fprintf(f, "- **Checks**: %s\n", t->rule);
	fprintf(f, "- **Sends**: %s\n", sends);
	if (kinds[t->kind].pass) {
		fprintf(f, "- **PASS**: %s: %s\n", expect, kinds[t->kind].pass);
		fprintf(f, "- **FAIL**: %s\n", kinds[t->kind].fail);
		fprintf(f, "- **INCONCLUSIVE**: %s%s%s\n", kinds[t->kind].inconclusive ? kinds[t->kind].inconclusive : "",
			kinds[t->kind].inconclusive ? "; " : "",
			t->needs & (NEED_DUT_REQ | NEED_DUT_READ) ? "the DUT did not send its own message, or sent nothing at all"
								  : "the DUT sent nothing at all, or the in-order request "
								    "the test starts from was not acknowledged");
	}
	na_text(t, na, sizeof(na));
	fprintf(f, "- **N/A**: %s\n", na);
	if (ex) {
		earns(t, ex, got, sizeof(got));
		fprintf(f, "- **Linux Soft-RoCE**: %s\n", got);
	}
}

void list_markdown(FILE *f, const struct expect_list *ex, const char *expect_path)
{
	fprintf(f, "# The roceconform catalogue\n\n"
		   "<!-- Generated by `roceconform --list --format markdown%s%s`: do not edit; regenerate. -->\n\n",
		ex ? " --expect " : "", ex ? expect_path : "");
	fprintf(f, "Each test, the IBTA rule it checks (the compliance statement ID where one is confirmed: the base "
		   "specification's C9-n, the RoCEv2 annex A17's CA17-n; otherwise the section of the base "
		   "specification, IBTA Vol 1, or of the annex, marked \"no ID confirmed\"), what it sends "
		   "and what counts as each verdict. Every test runs on a fresh queue pair; ePSN is the PSN the DUT "
		   "expects next, tol the timing tolerance (--tolerance, 25 %% by default). A FAIL that rests only on "
		   "an answer not seen (every answer seen right: no acknowledgement, a READ response packet or an "
		   "ATOMIC_ACK missing) is not taken at once: the test runs again on a fresh queue pair, and a pass "
		   "then makes it INCONCLUSIVE (the answer was lost on the path, or the DUT does not always send it), "
		   "a second FAIL stands (--no-rerun: the first FAIL stands).\n");
	if (ex)
		fprintf(f, "\nThe Linux Soft-RoCE column: the verdict rdma_rxe (Linux 6.1) earns: as `%s` lists its "
			   "known deviations, N/A where it is not declared to do what the test needs (ECN -> CNP, PFC), "
			   "PASS otherwise (the dut-conformance CI run asserts the whole catalogue "
			   "with that list).\n", expect_path);
	fprintf(f, "\n");
	md_index(f, ex);
	for (size_t i = 0; i < conf_n_tests; i++)
		md_test(f, &conf_tests[i], ex);
}
