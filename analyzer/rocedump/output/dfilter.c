/* dfilter.c: rocedump -Y (grammar in dfilter.h): a hand-written tokenizer and recursive-descent
 * parser into a small tree of nodes, and its evaluation over one frame's fields and events. */
#include "output/dfilter.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum node_kind { N_AND, N_OR, N_NOT, N_CMP, N_EXISTS, N_EVENT };
enum cmp_op { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };

struct node {
	enum node_kind kind;
	struct node *a, *b;        /* AND, OR: both; NOT: a */
	enum roce_field field;     /* CMP */
	enum cmp_op op;
	uint64_t num;              /* CMP on a number */
	int64_t ns;                /* CMP on the time stamp: nanoseconds since 1970 */
	char *str;                 /* CMP on a string */
	unsigned n_fields;         /* EXISTS: the fields under a path */
	enum roce_field *fields;
	struct roce_evset events;  /* EVENT: any of these (all events when "event" stands alone) */
	bool negate;               /* EVENT: none of them */
};

struct dfilter { struct node *root; };

/* ---- tokens ---- */

enum tok_kind { T_END, T_WORD, T_STRING, T_LPAREN, T_RPAREN, T_NOT, T_AND, T_OR, T_OP };

struct parser {
	const char *src;
	size_t pos;              /* next character */
	enum tok_kind tok;       /* the current token */
	size_t tok_pos, tok_len; /* where it lies in src */
	enum cmp_op op;          /* T_OP */
	char *text;              /* T_WORD, T_STRING: its text (a string without its quotes) */
	char *err;
	size_t errlen;
	bool failed;
	unsigned depth;          /* '(' and 'not' open around the current token */
};

static __attribute__((format(printf, 3, 4))) void fail_at(struct parser *ps, size_t pos, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	int n = snprintf(ps->err, ps->errlen, "column %zu: ", pos + 1);
	va_list ap;
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < ps->errlen)
		vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

static bool word_char(char c)
{
	return isalnum((unsigned char)c) || (c && strchr("_.:*-/?[]", c) != NULL);
}

static const struct { const char *text; enum tok_kind tok; enum cmp_op op; } words[] = {
	{"and", T_AND, 0}, {"or", T_OR, 0}, {"not", T_NOT, 0},
	{"eq", T_OP, OP_EQ}, {"ne", T_OP, OP_NE}, {"lt", T_OP, OP_LT}, {"le", T_OP, OP_LE},
	{"gt", T_OP, OP_GT}, {"ge", T_OP, OP_GE},
};

static void next(struct parser *ps)
{
	const char *s = ps->src;
	free(ps->text);
	ps->text = NULL;
	while (isspace((unsigned char)s[ps->pos]))
		ps->pos++;
	size_t p = ps->pos;
	ps->tok_pos = p;
	ps->tok_len = 1;
	static const struct { const char *text; enum tok_kind tok; enum cmp_op op; } ops[] = {
		{"==", T_OP, OP_EQ}, {"!=", T_OP, OP_NE}, {"<=", T_OP, OP_LE}, {">=", T_OP, OP_GE},
		{"&&", T_AND, 0}, {"||", T_OR, 0}, {"<", T_OP, OP_LT}, {">", T_OP, OP_GT},
		{"!", T_NOT, 0}, {"(", T_LPAREN, 0}, {")", T_RPAREN, 0}, {"=", T_OP, OP_EQ},
	};
	if (!s[p]) {
		ps->tok = T_END;
		return;
	}
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].text);
		if (strncmp(s + p, ops[i].text, n) == 0) {
			ps->tok = ops[i].tok;
			ps->op = ops[i].op;
			ps->tok_len = n;
			ps->pos = p + n;
			return;
		}
	}
	if (s[p] == '"') {
		size_t e = p + 1;
		while (s[e] && s[e] != '"')
			e++;
		if (!s[e]) {
			fail_at(ps, p, "string not closed (a '\"' is missing)");
			ps->tok = T_END;
			return;
		}
		ps->text = strndup(s + p + 1, e - p - 1);
		ps->tok = T_STRING;
		ps->tok_len = e + 1 - p;
		ps->pos = e + 1;
	} else if (word_char(s[p])) {
		size_t e = p;
		while (word_char(s[e]))
			e++;
		ps->text = strndup(s + p, e - p);
		ps->tok = T_WORD;
		ps->tok_len = e - p;
		ps->pos = e;
		for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strcmp(ps->text, words[i].text) == 0) {
				ps->tok = words[i].tok;
				ps->op = words[i].op;
			}
	} else {
		fail_at(ps, p, "unexpected character '%c'", s[p]);
		ps->tok = T_END;
		return;
	}
	if ((ps->tok == T_WORD || ps->tok == T_STRING) && !ps->text) {
		fail_at(ps, p, "out of memory");
		ps->tok = T_END;
	}
}

/* ---- nodes ---- */

/* A chain of and/or hangs to the right (parse_binary), so the loop follows b and the recursion
 * goes only as deep as the expression nests (DFILTER_MAX_DEPTH). */
static void free_node(struct node *n)
{
	while (n) {
		struct node *b = n->b;
		free_node(n->a);
		free(n->str);
		free(n->fields);
		free(n);
		n = b;
	}
}

static struct node *new_node(struct parser *ps, enum node_kind kind)
{
	struct node *n = calloc(1, sizeof(*n));
	if (!n)
		fail_at(ps, ps->tok_pos, "out of memory");
	else
		n->kind = kind;
	return n;
}

/* An event test on name (a glob): the events it names, or false when none. */
static bool event_set(const char *name, struct roce_evset *set)
{
	bool any = false;
	if (strncmp(name, "roce.", 5) == 0 && strcmp(name, "roce.") != 0) {
		struct roce_evset s2 = {{0}};
		if (event_set(name + 5, &s2)) {
			*set = s2;
			return true;
		}
	}
	memset(set, 0, sizeof(*set));
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++)
		if (fnmatch(name, roce_event_name((enum roce_event)e), 0) == 0) {
			roce_evset_add(set, (enum roce_event)e);
			any = true;
		}
	return any;
}

static bool is_event_name(const char *name)
{
	for (unsigned e = 0; e < ROCE_EV_COUNT; e++)
		if (strcmp(name, roce_event_name((enum roce_event)e)) == 0)
			return true;
	return false;
}

/* The fields under path ("roce.reth": roce.reth.va, ...). */
static unsigned fields_under(const char *path, enum roce_field *out)
{
	size_t n = strlen(path);
	unsigned k = 0;
	for (unsigned f = 0; f < ROCE_F_COUNT; f++) {
		const char *fp = roce_field_info((enum roce_field)f)->path;
		if (strncmp(fp, path, n) == 0 && fp[n] == '.') {
			if (out)
				out[k] = (enum roce_field)f;
			k++;
		}
	}
	return k;
}

static bool is_addr_field(enum roce_field f)
{
	return f == ROCE_F_IP_SRC || f == ROCE_F_IP_DST || f == ROCE_F_GRH_SRC || f == ROCE_F_GRH_DST ||
	       f == ROCE_F_WRAP_SRC || f == ROCE_F_WRAP_DST;
}

/* A number: decimal or 0x hex, the whole word. */
static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;
	if (!isdigit((unsigned char)s[0]))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

/* A time stamp: seconds since 1970, with up to 9 digits of fraction. */
static bool parse_ts(const char *s, int64_t *ns)
{
	char *end;
	bool neg = *s == '-';
	const char *d = s + neg;
	if (!isdigit((unsigned char)*d))
		return false;
	errno = 0;
	long long sec = strtoll(d, &end, 10);
	if (errno || sec > INT64_MAX / 1000000000 - 1)
		return false;
	int64_t frac = 0, scale = 100000000;
	if (*end == '.') {
		for (end++; isdigit((unsigned char)*end); end++) {
			if (!scale)
				return false;
			frac += (*end - '0') * scale;
			scale /= 10;
		}
	}
	if (*end)
		return false;
	*ns = (neg ? -1 : 1) * ((int64_t)sec * 1000000000 + frac);
	return true;
}

static struct node *parse_or(struct parser *ps);

/* FIELD OP VALUE, after FIELD and OP. */
static struct node *parse_cmp(struct parser *ps, enum roce_field f, const char *name)
{
	const struct roce_field_info *fi = roce_field_info(f);
	enum cmp_op op = ps->op;
	size_t op_pos = ps->tok_pos;
	next(ps);
	if (ps->tok != T_WORD && ps->tok != T_STRING) {
		fail_at(ps, ps->tok_pos, "a value must follow the comparison on %s", name);
		return NULL;
	}
	struct node *n = new_node(ps, N_CMP);
	if (!n)
		return NULL;
	n->field = f;
	n->op = op;
	if (fi->kind == ROCE_FK_O) {
		fail_at(ps, op_pos, "%s is an object: test it alone, or compare one of its fields", name);
		goto bad;
	}
	if (fi->kind == ROCE_FK_U || fi->kind == ROCE_FK_RU || fi->kind == ROCE_FK_AU) {
		if (ps->tok != T_WORD || !parse_u64(ps->text, &n->num)) {
			fail_at(ps, ps->tok_pos, "%s is a number: '%s' is not one", name, ps->text);
			goto bad;
		}
	} else if (fi->kind == ROCE_FK_T) {
		if (!parse_ts(ps->text, &n->ns)) {
			fail_at(ps, ps->tok_pos, "%s is a time stamp (seconds since 1970): '%s' is not one", name, ps->text);
			goto bad;
		}
	} else {
		if (op != OP_EQ && op != OP_NE) {
			fail_at(ps, op_pos, "%s is a string: only == and != compare it", name);
			goto bad;
		}
		uint8_t a[16];
		char canon[ROCE_ADDRSTR_MAX];
		if (is_addr_field(f) && inet_pton(AF_INET, ps->text, a) == 1) {
			roce_fmt_ip(canon, a, 4);
			n->str = strdup(canon);
		} else if (is_addr_field(f) && inet_pton(AF_INET6, ps->text, a) == 1) {
			roce_fmt_ip(canon, a, 16);
			n->str = strdup(canon);
		} else if (is_addr_field(f) && ps->tok == T_WORD) {
			fail_at(ps, ps->tok_pos, "%s is an address: '%s' is not one", name, ps->text);
			goto bad;
		} else {
			n->str = strdup(ps->text);
			if (n->str && (f == ROCE_F_LINK_SRC || f == ROCE_F_LINK_DST))
				for (char *c = n->str; *c; c++)
					*c = (char)tolower((unsigned char)*c);
		}
		if (!n->str) {
			fail_at(ps, ps->tok_pos, "out of memory");
			goto bad;
		}
	}
	next(ps);
	return n;
bad:
	free_node(n);
	return NULL;
}

/* "event" [==|!= NAME], after "event". */
static struct node *parse_event(struct parser *ps)
{
	struct node *n = new_node(ps, N_EVENT);
	if (!n)
		return NULL;
	if (ps->tok == T_OP && ps->op != OP_EQ && ps->op != OP_NE) {
		fail_at(ps, ps->tok_pos, "events compare with == or != only");
		goto bad;
	}
	if (ps->tok == T_OP) {
		n->negate = ps->op == OP_NE;
		next(ps);
		if (ps->tok != T_WORD && ps->tok != T_STRING) {
			fail_at(ps, ps->tok_pos, "an event name must follow");
			goto bad;
		}
	}
	if (ps->tok == T_WORD || ps->tok == T_STRING) {
		if (!event_set(ps->text, &n->events)) {
			fail_at(ps, ps->tok_pos, "no event is named '%s' (rocedump --list-events)", ps->text);
			goto bad;
		}
		next(ps);
	} else {
		for (unsigned e = 0; e < ROCE_EV_COUNT; e++)
			roce_evset_add(&n->events, (enum roce_event)e);
	}
	return n;
bad:
	free_node(n);
	return NULL;
}

/* Enter a '(' or 'not' at the current token: false (and the error) past DFILTER_MAX_DEPTH, so that
 * a hostile expression cannot exhaust the stack. */
static bool nest(struct parser *ps)
{
	if (++ps->depth <= DFILTER_MAX_DEPTH)
		return true;
	fail_at(ps, ps->tok_pos, "the filter nests deeper than %u levels of '(' and 'not'", DFILTER_MAX_DEPTH);
	return false;
}

static struct node *parse_primary(struct parser *ps)
{
	if (ps->tok == T_LPAREN) {
		size_t open = ps->tok_pos;
		if (!nest(ps))
			return NULL;
		next(ps);
		struct node *n = parse_or(ps);
		ps->depth--;
		if (!n)
			return NULL;
		if (ps->tok != T_RPAREN) {
			fail_at(ps, ps->tok_pos, "')' expected to close the '(' of column %zu", open + 1);
			free_node(n);
			return NULL;
		}
		next(ps);
		return n;
	}
	if (ps->tok != T_WORD) {
		fail_at(ps, ps->tok_pos, ps->tok == T_END ? "the expression ends early" :
			"a field name, 'event', 'not' or '(' expected");
		return NULL;
	}
	size_t name_pos = ps->tok_pos;
	char *name = ps->text;
	ps->text = NULL;
	next(ps);
	struct node *n = NULL;
	int f = roce_field_by_name(name);
	if (f >= 0 && ps->tok != T_OP && is_event_name(name))
		f = -1;  /* pfc.malformed alone: the event (on PAUSE frames too), as before the field */
	if (strcmp(name, "event") == 0 || strcmp(name, "events") == 0) {
		n = parse_event(ps);
	} else if (f >= 0 && ps->tok == T_OP) {
		n = parse_cmp(ps, (enum roce_field)f, name);
	} else if (f >= 0 || fields_under(name, NULL)) {
		if (ps->tok == T_OP && f < 0) {
			fail_at(ps, ps->tok_pos, "%s is a group of fields: compare one of them", name);
		} else if ((n = new_node(ps, N_EXISTS))) {
			n->n_fields = f >= 0 ? 1 : fields_under(name, NULL);
			n->fields = calloc(n->n_fields, sizeof(*n->fields));
			if (!n->fields) {
				fail_at(ps, name_pos, "out of memory");
				free_node(n);
				n = NULL;
			} else if (f >= 0) {
				n->fields[0] = (enum roce_field)f;
			} else {
				fields_under(name, n->fields);
			}
		}
	} else if ((n = new_node(ps, N_EVENT)) && !event_set(name, &n->events)) {
		fail_at(ps, name_pos, "unknown field or event '%s' (fields: see the JSON output; events: rocedump --list-events)", name);
		free_node(n);
		n = NULL;
	} else if (n && ps->tok == T_OP) {
		fail_at(ps, ps->tok_pos, "%s is an event: test it alone, or with 'event == NAME'", name);
		free_node(n);
		n = NULL;
	}
	free(name);
	return n;
}

static struct node *parse_not(struct parser *ps)
{
	if (ps->tok == T_NOT) {
		if (!nest(ps))
			return NULL;
		next(ps);
		struct node *a = parse_not(ps);
		ps->depth--;
		if (!a)
			return NULL;
		struct node *n = new_node(ps, N_NOT);
		if (!n) {
			free_node(a);
			return NULL;
		}
		n->a = a;
		return n;
	}
	return parse_primary(ps);
}

/* OPERAND (TOK OPERAND)*: a chain a OP b OP c hangs to the right, a OP (b OP c), which means the
 * same for and/or and lets eval() and free_node() walk it in a loop however long it is. */
static struct node *parse_binary(struct parser *ps, enum tok_kind tok, enum node_kind kind,
				 struct node *(*operand)(struct parser *))
{
	struct node *root = operand(ps);
	struct node **last = &root;  /* the chain's last operand */
	while (root && ps->tok == tok) {
		next(ps);
		struct node *right = operand(ps);
		struct node *n = right ? new_node(ps, kind) : NULL;
		if (!n) {
			free_node(root);
			free_node(right);
			return NULL;
		}
		n->a = *last;
		n->b = right;
		*last = n;
		last = &n->b;
	}
	return root;
}

static struct node *parse_and(struct parser *ps)
{
	return parse_binary(ps, T_AND, N_AND, parse_not);
}

static struct node *parse_or(struct parser *ps)
{
	return parse_binary(ps, T_OR, N_OR, parse_and);
}

struct dfilter *dfilter_compile(const char *expr, char *err, size_t errlen)
{
	struct parser ps = {.src = expr, .err = err, .errlen = errlen};
	struct dfilter *df = calloc(1, sizeof(*df));
	if (!df) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	next(&ps);
	if (ps.tok == T_END && !ps.failed)
		fail_at(&ps, 0, "the filter is empty");
	struct node *root = ps.failed ? NULL : parse_or(&ps);
	if (root && ps.tok != T_END)
		fail_at(&ps, ps.tok_pos, ps.tok == T_RPAREN ? "')' without its '('" :
			"'and' or 'or' expected between two tests");
	free(ps.text);
	if (ps.failed) {
		free_node(root);
		free(df);
		return NULL;
	}
	df->root = root;
	return df;
}

void dfilter_free(struct dfilter *df)
{
	if (df) {
		free_node(df->root);
		free(df);
	}
}

/* ---- evaluation ---- */

static bool compare(const struct node *n, const struct roce_field_info *fi, const struct roce_field_val *v)
{
	int c;
	if (fi->kind == ROCE_FK_S || fi->kind == ROCE_FK_AS) {
		return (strcmp(v->s, n->str) == 0) == (n->op == OP_EQ);
	} else if (fi->kind == ROCE_FK_T) {
		/* saturated: a time stamp past what nanoseconds hold lies past every value parse_ts takes */
		const int64_t max_sec = INT64_MAX / 1000000000 - 1;
		int64_t ns = v->sec > max_sec ? INT64_MAX : v->sec < -max_sec ? INT64_MIN : v->sec * 1000000000 + (int64_t)v->u;
		c = ns < n->ns ? -1 : ns > n->ns;
	} else {
		c = v->u < n->num ? -1 : v->u > n->num;
	}
	switch (n->op) {
	case OP_EQ: return c == 0;
	case OP_NE: return c != 0;
	case OP_LT: return c < 0;
	case OP_LE: return c <= 0;
	case OP_GT: return c > 0;
	default: return c >= 0;
	}
}

static bool eval(const struct node *n, const struct roce_field_src *src, const struct roce_evset *ev)
{
	struct roce_field_val v;

	while (n->kind == N_AND || n->kind == N_OR) {  /* along a chain (parse_binary) */
		if (eval(n->a, src, ev) != (n->kind == N_AND))
			return n->kind == N_OR;
		n = n->b;
	}
	switch (n->kind) {
	case N_AND:
	case N_OR:
		break;
	case N_NOT:
		return !eval(n->a, src, ev);
	case N_EVENT: {
		bool any = false;
		for (unsigned w = 0; w < ROCE_EVSET_WORDS; w++)
			any |= (ev->w[w] & n->events.w[w]) != 0;
		return any != n->negate;
	}
	case N_EXISTS:
		for (unsigned k = 0; k < n->n_fields; k++)
			if (roce_field_has(n->fields[k], src))
				return true;
		return false;
	case N_CMP: {
		const struct roce_field_info *fi = roce_field_info(n->field);
		if (fi->kind != ROCE_FK_RU && fi->kind != ROCE_FK_AU && fi->kind != ROCE_FK_AS)
			return roce_field_get(n->field, src, 0, &v) && compare(n, fi, &v);
		bool seen = false;  /* any element equal (==), or none equal (!=) */
		for (unsigned i = 0; roce_field_get(n->field, src, i, &v); i++) {
			seen = true;
			bool eq = compare(n, fi, &v);
			if (n->op == OP_NE && !eq)
				return false;
			if (n->op != OP_NE && eq)
				return true;
		}
		return seen && n->op == OP_NE;
	}
	}
	return false;
}

bool dfilter_match(const struct dfilter *df, const struct roce_field_src *src, const struct roce_evset *events)
{
	return eval(df->root, src, events);
}
