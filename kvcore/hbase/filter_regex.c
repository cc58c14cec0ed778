/**
 * @file filter_regex.c
 * kv_regex (filter_regex.h): a parser from Java's regex subset to a small
 * syntax tree, a code generator to a program of byte-set, split, jump and
 * assertion instructions, and a simulation that keeps, for each position
 * of the value, the set of program positions alive (each at most once), so
 * the cost is bounded by the value length times the program size whatever
 * the pattern. Used by filter_parse.c / filter_eval.c for 'regexstring:'.
 */
#include "filter_regex.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nesting of groups beyond this is refused (the parser recurses). */
#define RX_MAX_DEPTH 200
/* Largest count in {n,m}, as a bound before expansion. */
#define RX_MAX_COUNT 1000

typedef enum { OP_SET, OP_SPLIT, OP_JMP, OP_BOL, OP_EOL, OP_EOI, OP_EOL_Z, OP_WORDB, OP_NWORDB,
               OP_MATCH } rx_op;

typedef struct rx_inst {
    uint8_t op;
    uint32_t x, y;                /* SET: set index; SPLIT: both; JMP: x */
} rx_inst;

struct kv_regex {
    rx_inst *prog;
    size_t nprog;
    uint8_t (*sets)[32];          /* 256-bit byte sets */
    size_t nsets;
};

/* ---- syntax tree ---- */

typedef enum { N_EMPTY, N_SET, N_CAT, N_ALT, N_REP, N_ASSERT } rx_kind;

typedef struct rx_node {
    rx_kind kind;
    struct rx_node *a, *b;        /* CAT/ALT: a then b; REP: a */
    int min, max;                 /* REP: max -1 = unbounded */
    uint8_t set[32];              /* SET */
    rx_op assert_op;              /* ASSERT */
} rx_node;

typedef struct rx_parser {
    const char *p;
    size_t len, pos;
    char *err;
    size_t errlen;
    int failed;                   /* 0, -1 syntax, -2 memory */
    int depth;
    bool icase;
} rx_parser;

static void rx_fail(rx_parser *ps, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void rx_fail(rx_parser *ps, size_t at, const char *fmt, ...) {
    if (ps->failed) return;
    ps->failed = -1;
    if (!ps->err || !ps->errlen) return;
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(ps->err, ps->errlen, "%s at offset %zu of the regular expression", what, at);
}

static void rx_free_node(rx_node *n) {
    if (!n) return;
    rx_free_node(n->a);
    rx_free_node(n->b);
    free(n);
}

static rx_node *rx_new(rx_parser *ps, rx_kind k) {
    rx_node *n = calloc(1, sizeof *n);
    if (!n) {
        if (!ps->failed) {
            ps->failed = -2;
            if (ps->err && ps->errlen) snprintf(ps->err, ps->errlen, "out of memory");
        }
        return NULL;
    }
    n->kind = k;
    return n;
}

static rx_node *rx_pair(rx_parser *ps, rx_kind k, rx_node *a, rx_node *b) {
    if (!a || !b) {
        rx_free_node(a);
        rx_free_node(b);
        return NULL;
    }
    rx_node *n = rx_new(ps, k);
    if (!n) {
        rx_free_node(a);
        rx_free_node(b);
        return NULL;
    }
    n->a = a;
    n->b = b;
    return n;
}

static void set_add(uint8_t *set, unsigned c) { set[c >> 3] |= (uint8_t)(1u << (c & 7)); }
static bool set_has(const uint8_t *set, unsigned c) { return set[c >> 3] & (1u << (c & 7)); }

static void set_range(uint8_t *set, unsigned lo, unsigned hi) {
    for (unsigned c = lo; c <= hi; c++) set_add(set, c);
}

static bool is_word(unsigned c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static void set_class(uint8_t *set, char which) {
    uint8_t t[32] = {0};
    switch (which | 0x20) {
    case 'd': set_range(t, '0', '9'); break;
    case 'w':
        for (unsigned c = 0; c < 256; c++)
            if (is_word(c)) set_add(t, c);
        break;
    case 's':
        set_add(t, ' '); set_add(t, '\t'); set_add(t, '\n'); set_add(t, '\v'); set_add(t, '\f');
        set_add(t, '\r');
        break;
    }
    bool negate = which >= 'A' && which <= 'Z';
    for (int i = 0; i < 32; i++) set[i] |= negate ? (uint8_t)~t[i] : t[i];
}

static void fold_case(uint8_t *set) {
    for (unsigned c = 'a'; c <= 'z'; c++) {
        if (set_has(set, c) || set_has(set, c - 32)) {
            set_add(set, c);
            set_add(set, c - 32);
        }
    }
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* An escape after '\' (ps->pos at the character after it) standing for one
   byte, or a class (*cls set). Returns the byte, or -1 on failure. */
static int rx_escape(rx_parser *ps, char *cls) {
    size_t at = ps->pos - 1;
    *cls = 0;
    if (ps->pos >= ps->len) {
        rx_fail(ps, at, "trailing backslash");
        return -1;
    }
    char c = ps->p[ps->pos++];
    switch (c) {
    case 't': return '\t';
    case 'n': return '\n';
    case 'r': return '\r';
    case 'f': return '\f';
    case 'a': return 7;
    case 'e': return 27;
    case 'd': case 'D': case 'w': case 'W': case 's': case 'S':
        *cls = c;
        return 0;
    case 'x': {
        int h1 = ps->pos < ps->len ? hexval(ps->p[ps->pos]) : -1;
        int h2 = ps->pos + 1 < ps->len ? hexval(ps->p[ps->pos + 1]) : -1;
        if (h1 < 0 || h2 < 0) {
            rx_fail(ps, at, "\\x needs two hexadecimal digits (\\x{...} is not supported)");
            return -1;
        }
        ps->pos += 2;
        return h1 * 16 + h2;
    }
    case '0': {
        int v = 0, n = 0;
        while (n < 3 && ps->pos < ps->len && ps->p[ps->pos] >= '0' && ps->p[ps->pos] <= '7' &&
               v * 8 + (ps->p[ps->pos] - '0') < 256) {
            v = v * 8 + (ps->p[ps->pos++] - '0');
            n++;
        }
        if (n == 0) {
            rx_fail(ps, at, "\\0 needs octal digits");
            return -1;
        }
        return v;
    }
    default:
        break;
    }
    if ((c >= '1' && c <= '9') || c == 'k') {
        rx_fail(ps, at, "backreferences are not supported");
        return -1;
    }
    if (c == 'p' || c == 'P') {
        rx_fail(ps, at, "\\%c{...} character properties are not supported", c);
        return -1;
    }
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        rx_fail(ps, at, "escape \\%c is not supported", c);
        return -1;
    }
    return (unsigned char)c;   /* an escaped metacharacter or other symbol */
}

static rx_node *rx_alt(rx_parser *ps);

static rx_node *rx_set_node(rx_parser *ps, const uint8_t *set) {
    rx_node *n = rx_new(ps, N_SET);
    if (!n) return NULL;
    memcpy(n->set, set, 32);
    if (ps->icase) fold_case(n->set);
    return n;
}

static rx_node *rx_class(rx_parser *ps) {
    size_t open = ps->pos - 1;
    uint8_t set[32] = {0};
    bool negate = false;
    if (ps->pos < ps->len && ps->p[ps->pos] == '^') {
        negate = true;
        ps->pos++;
    }
    bool first = true;
    for (;;) {
        if (ps->pos >= ps->len) {
            rx_fail(ps, open, "unclosed character class");
            return NULL;
        }
        char c = ps->p[ps->pos];
        if (c == ']' && !first) {
            ps->pos++;
            break;
        }
        first = false;
        if (c == '[' || (c == '&' && ps->pos + 1 < ps->len && ps->p[ps->pos + 1] == '&')) {
            rx_fail(ps, ps->pos, "nested classes, unions and intersections are not supported");
            return NULL;
        }
        ps->pos++;
        int lo = (unsigned char)c;
        if (c == '\\') {
            char cls;
            lo = rx_escape(ps, &cls);
            if (lo < 0) return NULL;
            if (cls) {
                set_class(set, cls);
                continue;
            }
        }
        if (ps->pos + 1 < ps->len && ps->p[ps->pos] == '-' && ps->p[ps->pos + 1] != ']') {
            size_t at = ps->pos;
            ps->pos++;
            int hi = (unsigned char)ps->p[ps->pos++];
            if (hi == '\\') {
                char cls;
                hi = rx_escape(ps, &cls);
                if (hi < 0) return NULL;
                if (cls) {
                    rx_fail(ps, at, "a range cannot end in a class escape");
                    return NULL;
                }
            } else if (hi == '[') {
                rx_fail(ps, at, "nested classes are not supported");
                return NULL;
            }
            if (hi < lo) {
                rx_fail(ps, at, "illegal character range");
                return NULL;
            }
            set_range(set, (unsigned)lo, (unsigned)hi);
        } else {
            set_add(set, (unsigned)lo);
        }
    }
    if (ps->icase) fold_case(set);
    if (negate)
        for (int i = 0; i < 32; i++) set[i] = (uint8_t)~set[i];
    bool icase = ps->icase;
    ps->icase = false;            /* already folded before negation */
    rx_node *n = rx_set_node(ps, set);
    ps->icase = icase;
    return n;
}

static rx_node *rx_assert(rx_parser *ps, rx_op op) {
    rx_node *n = rx_new(ps, N_ASSERT);
    if (n) n->assert_op = op;
    return n;
}

/* \Q...\E: the quoted text as a concatenation of literals. */
static rx_node *rx_quoted(rx_parser *ps) {
    rx_node *n = rx_new(ps, N_EMPTY);
    while (n && ps->pos < ps->len) {
        if (ps->p[ps->pos] == '\\' && ps->pos + 1 < ps->len && ps->p[ps->pos + 1] == 'E') {
            ps->pos += 2;
            break;
        }
        uint8_t set[32] = {0};
        set_add(set, (unsigned char)ps->p[ps->pos++]);
        n = rx_pair(ps, N_CAT, n, rx_set_node(ps, set));
    }
    return n;
}

/* The alternatives of a group up to its ')', with flag i set to icase
   inside it only. */
static rx_node *rx_group_body(rx_parser *ps, size_t open, bool icase) {
    bool saved = ps->icase;
    ps->icase = icase;
    rx_node *n = rx_alt(ps);
    ps->icase = saved;
    if (n && (ps->pos >= ps->len || ps->p[ps->pos] != ')')) {
        rx_fail(ps, open, "unclosed group");
        rx_free_node(n);
        return NULL;
    }
    if (n) ps->pos++;
    return n;
}

/* (?flags) or (?flags:...) after "(?"; returns the node, or an N_EMPTY for
   a bare flag change that applies to the rest of the enclosing group. */
static rx_node *rx_flags(rx_parser *ps, size_t open) {
    bool on = true, icase = ps->icase;
    while (ps->pos < ps->len) {
        char c = ps->p[ps->pos];
        if (c == '-') { on = false; ps->pos++; continue; }
        if (c == 'i') { icase = on; ps->pos++; continue; }
        break;
    }
    if (ps->pos >= ps->len || (ps->p[ps->pos] != ')' && ps->p[ps->pos] != ':')) {
        rx_fail(ps, open, "only the flag i (?i) is supported, not this group or flag");
        return NULL;
    }
    if (ps->p[ps->pos++] == ')') {
        ps->icase = icase;
        return rx_new(ps, N_EMPTY);
    }
    return rx_group_body(ps, open, icase);
}

static rx_node *rx_group(rx_parser *ps) {
    size_t open = ps->pos - 1;
    if (ps->pos < ps->len && ps->p[ps->pos] == '?') {
        ps->pos++;
        char c = ps->pos < ps->len ? ps->p[ps->pos] : 0;
        if (c == ':') {
            ps->pos++;
        } else if (c == '<' && ps->pos + 1 < ps->len && ps->p[ps->pos + 1] != '=' &&
                   ps->p[ps->pos + 1] != '!') {
            while (ps->pos < ps->len && ps->p[ps->pos] != '>') ps->pos++;
            if (ps->pos >= ps->len) {
                rx_fail(ps, open, "unclosed group name");
                return NULL;
            }
            ps->pos++;
        } else if (c == '=' || c == '!' || c == '<') {
            rx_fail(ps, open, "lookahead and lookbehind are not supported");
            return NULL;
        } else if (c == '>') {
            rx_fail(ps, open, "atomic groups are not supported");
            return NULL;
        } else {
            return rx_flags(ps, open);
        }
    }
    return rx_group_body(ps, open, ps->icase);
}

static rx_node *rx_atom(rx_parser *ps) {
    char c = ps->p[ps->pos++];
    uint8_t set[32] = {0};
    switch (c) {
    case '(': return rx_group(ps);
    case '[': return rx_class(ps);
    case '.':
        memset(set, 0xff, sizeof set);   /* DOTALL, as RegexStringComparator */
        return rx_set_node(ps, set);
    case '^': return rx_assert(ps, OP_BOL);
    case '$': return rx_assert(ps, OP_EOL);
    case '*': case '+': case '?': case '{':
        rx_fail(ps, ps->pos - 1, "dangling meta character '%c'", c);
        return NULL;
    case '\\': {
        if (ps->pos < ps->len) {
            char e = ps->p[ps->pos];
            rx_op op = OP_MATCH;
            if (e == 'b') op = OP_WORDB;
            else if (e == 'B') op = OP_NWORDB;
            else if (e == 'A') op = OP_BOL;
            else if (e == 'z') op = OP_EOI;
            else if (e == 'Z') op = OP_EOL_Z;
            if (op != OP_MATCH) {
                ps->pos++;
                return rx_assert(ps, op);
            }
            if (e == 'Q') {
                ps->pos++;
                return rx_quoted(ps);
            }
        }
        char cls;
        int b = rx_escape(ps, &cls);
        if (b < 0) return NULL;
        if (cls) set_class(set, cls);
        else set_add(set, (unsigned)b);
        return rx_set_node(ps, set);
    }
    default:
        set_add(set, (unsigned char)c);
        return rx_set_node(ps, set);
    }
}

static bool rx_number(rx_parser *ps, int *out) {
    size_t start = ps->pos;
    long v = 0;
    while (ps->pos < ps->len && ps->p[ps->pos] >= '0' && ps->p[ps->pos] <= '9') {
        v = v * 10 + (ps->p[ps->pos++] - '0');
        if (v > RX_MAX_COUNT) {
            rx_fail(ps, start, "repetition count above %d", RX_MAX_COUNT);
            return false;
        }
    }
    *out = (int)v;
    return ps->pos > start;
}

static rx_node *rx_repeat(rx_parser *ps) {
    rx_node *n = rx_atom(ps);
    while (n && ps->pos < ps->len) {
        char c = ps->p[ps->pos];
        size_t at = ps->pos;
        int min, max;
        if (c == '*') { min = 0; max = -1; }
        else if (c == '+') { min = 1; max = -1; }
        else if (c == '?') { min = 0; max = 1; }
        else if (c == '{') {
            ps->pos++;
            if (!rx_number(ps, &min)) {
                rx_fail(ps, at, "illegal repetition");
                break;
            }
            max = min;
            if (ps->pos < ps->len && ps->p[ps->pos] == ',') {
                ps->pos++;
                if (!rx_number(ps, &max)) max = -1;
            }
            if (ps->failed) break;
            if (ps->pos >= ps->len || ps->p[ps->pos] != '}') {
                rx_fail(ps, at, "illegal repetition");
                break;
            }
            if (max >= 0 && max < min) {
                rx_fail(ps, at, "illegal repetition range");
                break;
            }
        } else {
            break;
        }
        ps->pos++;
        if (ps->pos < ps->len && ps->p[ps->pos] == '?') {
            ps->pos++;   /* lazy: the same answer to "is there a match" */
        } else if (ps->pos < ps->len && ps->p[ps->pos] == '+') {
            rx_fail(ps, ps->pos, "possessive quantifiers are not supported");
            break;
        }
        rx_node *r = rx_new(ps, N_REP);
        if (!r) break;
        r->a = n;
        r->min = min;
        r->max = max;
        n = r;
    }
    if (ps->failed) {
        rx_free_node(n);
        return NULL;
    }
    return n;
}

static rx_node *rx_cat(rx_parser *ps) {
    rx_node *n = rx_new(ps, N_EMPTY);
    while (n && !ps->failed && ps->pos < ps->len && ps->p[ps->pos] != '|' && ps->p[ps->pos] != ')')
        n = rx_pair(ps, N_CAT, n, rx_repeat(ps));
    return n;
}

static rx_node *rx_alt(rx_parser *ps) {
    if (++ps->depth > RX_MAX_DEPTH) {
        rx_fail(ps, ps->pos, "groups nested too deeply");
        return NULL;
    }
    rx_node *n = rx_cat(ps);
    while (n && !ps->failed && ps->pos < ps->len && ps->p[ps->pos] == '|') {
        ps->pos++;
        n = rx_pair(ps, N_ALT, n, rx_cat(ps));
    }
    ps->depth--;
    if (ps->failed) {
        rx_free_node(n);
        return NULL;
    }
    return n;
}

/* ---- code generation ---- */

typedef struct rx_gen {
    kv_regex *re;
    size_t cap, setcap;
    bool too_big, nomem;
} rx_gen;

static size_t emit(rx_gen *g, rx_op op, uint32_t x, uint32_t y) {
    kv_regex *re = g->re;
    if (re->nprog >= KV_REGEX_MAX_PROGRAM) {
        g->too_big = true;
        return 0;
    }
    if (re->nprog == g->cap) {
        size_t ncap = g->cap ? 2 * g->cap : 64;
        rx_inst *np = realloc(re->prog, ncap * sizeof *np);
        if (!np) {
            g->nomem = true;
            return 0;
        }
        re->prog = np;
        g->cap = ncap;
    }
    re->prog[re->nprog] = (rx_inst){ (uint8_t)op, x, y };
    return re->nprog++;
}

static uint32_t add_set(rx_gen *g, const uint8_t *set) {
    kv_regex *re = g->re;
    if (re->nsets == g->setcap) {
        size_t ncap = g->setcap ? 2 * g->setcap : 16;
        uint8_t (*ns)[32] = realloc(re->sets, ncap * sizeof *ns);
        if (!ns) {
            g->nomem = true;
            return 0;
        }
        re->sets = ns;
        g->setcap = ncap;
    }
    memcpy(re->sets[re->nsets], set, 32);
    return (uint32_t)re->nsets++;
}

static bool gen_failed(const rx_gen *g) { return g->too_big || g->nomem; }

static void gen(rx_gen *g, const rx_node *n) {
    if (gen_failed(g)) return;
    size_t s, j;
    switch (n->kind) {
    case N_EMPTY: return;
    case N_SET: {
        uint32_t k = add_set(g, n->set);
        if (!gen_failed(g)) emit(g, OP_SET, k, 0);
        return;
    }
    case N_ASSERT: emit(g, n->assert_op, 0, 0); return;
    case N_CAT: gen(g, n->a); gen(g, n->b); return;
    case N_ALT:
        s = emit(g, OP_SPLIT, 0, 0);
        if (gen_failed(g)) return;
        g->re->prog[s].x = (uint32_t)g->re->nprog;
        gen(g, n->a);
        j = emit(g, OP_JMP, 0, 0);
        if (gen_failed(g)) return;
        g->re->prog[s].y = (uint32_t)g->re->nprog;
        gen(g, n->b);
        if (!gen_failed(g)) g->re->prog[j].x = (uint32_t)g->re->nprog;
        return;
    case N_REP:
        for (int i = 0; i < n->min && !gen_failed(g); i++) gen(g, n->a);
        if (n->max < 0) {
            s = emit(g, OP_SPLIT, 0, 0);
            if (gen_failed(g)) return;
            g->re->prog[s].x = (uint32_t)g->re->nprog;
            gen(g, n->a);
            emit(g, OP_JMP, (uint32_t)s, 0);
            if (!gen_failed(g)) g->re->prog[s].y = (uint32_t)g->re->nprog;
            return;
        }
        for (int i = n->min; i < n->max && !gen_failed(g); i++) {
            s = emit(g, OP_SPLIT, 0, 0);
            if (gen_failed(g)) return;
            g->re->prog[s].x = (uint32_t)g->re->nprog;
            gen(g, n->a);
            if (!gen_failed(g)) g->re->prog[s].y = (uint32_t)g->re->nprog;
        }
        return;
    }
}

void kv_regex_free(kv_regex *re) {
    if (!re) return;
    free(re->prog);
    free(re->sets);
    free(re);
}

int kv_regex_compile(kv_regex **out, const char *pattern, size_t len, char *err, size_t errlen) {
    *out = NULL;
    if (err && errlen) err[0] = 0;
    if (len > KV_REGEX_MAX_PATTERN) {
        if (err && errlen)
            snprintf(err, errlen, "regular expression longer than %d bytes", KV_REGEX_MAX_PATTERN);
        return -1;
    }
    rx_parser ps = { pattern, len, 0, err, errlen, 0, 0, false };
    rx_node *root = rx_alt(&ps);
    if (root && ps.pos < ps.len) {
        rx_fail(&ps, ps.pos, "unmatched closing ')'");
    }
    if (ps.failed) {
        rx_free_node(root);
        return ps.failed;
    }
    kv_regex *re = calloc(1, sizeof *re);
    if (!re) {
        rx_free_node(root);
        if (err && errlen) snprintf(err, errlen, "out of memory");
        return -2;
    }
    rx_gen g = { re, 0, 0, false, false };
    gen(&g, root);
    emit(&g, OP_MATCH, 0, 0);
    rx_free_node(root);
    if (gen_failed(&g)) {
        kv_regex_free(re);
        if (err && errlen) {
            if (g.nomem) snprintf(err, errlen, "out of memory");
            else snprintf(err, errlen, "regular expression too large (more than %d steps once "
                          "repetitions are expanded)", KV_REGEX_MAX_PROGRAM);
        }
        return g.nomem ? -2 : -1;
    }
    *out = re;
    return 0;
}

/* ---- matching ---- */

static bool assert_holds(rx_op op, const uint8_t *s, size_t len, size_t i) {
    switch (op) {
    case OP_BOL: return i == 0;
    case OP_EOI: return i == len;
    case OP_EOL:   /* Java's $ without MULTILINE: the end, or before a final line end */
    case OP_EOL_Z:
        if (i == len) return true;
        if (i + 1 == len && (s[i] == '\n' || s[i] == '\r')) return true;
        return i + 2 == len && s[i] == '\r' && s[i + 1] == '\n';
    case OP_WORDB:
    case OP_NWORDB: {
        bool before = i > 0 && is_word(s[i - 1]);
        bool after = i < len && is_word(s[i]);
        return (before != after) == (op == OP_WORDB);
    }
    default: return false;
    }
}

/* Adds pc and everything reachable from it without consuming a byte to
   list (marks[pc] == gen when present). Returns true if MATCH is reached. */
static bool add_thread(const kv_regex *re, uint32_t *list, size_t *n, uint32_t *marks, uint32_t gen,
                       uint32_t *stack, uint32_t pc, const uint8_t *s, size_t len, size_t i) {
    size_t sp = 0;
    stack[sp++] = pc;
    bool matched = false;
    while (sp) {
        uint32_t p = stack[--sp];
        if (marks[p] == gen) continue;
        marks[p] = gen;
        const rx_inst *in = &re->prog[p];
        switch ((rx_op)in->op) {
        case OP_SET: list[(*n)++] = p; break;
        case OP_MATCH: matched = true; break;
        case OP_JMP: stack[sp++] = in->x; break;
        case OP_SPLIT:
            stack[sp++] = in->y;
            stack[sp++] = in->x;
            break;
        default:
            if (assert_holds((rx_op)in->op, s, len, i)) stack[sp++] = p + 1;
            break;
        }
    }
    return matched;
}

int kv_regex_find(const kv_regex *re, const uint8_t *s, size_t len) {
    size_t np = re->nprog;
    /* two lists and the marks (np each) and a stack: every instruction is
       pushed at most once per edge into it, 2 * np + 1 in all */
    uint32_t small[5 * 64 + 1];
    size_t need = 5 * np + 1;
    uint32_t *buf = small;
    if (need > sizeof small / sizeof small[0]) {
        buf = malloc(need * sizeof *buf);
        if (!buf) return -1;
    }
    uint32_t *cur = buf, *next = buf + np, *marks = buf + 2 * np, *stack = buf + 3 * np;
    size_t ncur = 0, nnext = 0;
    memset(marks, 0xff, np * sizeof *marks);
    int found = 0;
    for (size_t i = 0;; i++) {
        uint32_t gen = (uint32_t)(i & 0x7fffffff);
        /* unanchored: a new attempt starts at every position (find()) */
        if (add_thread(re, cur, &ncur, marks, gen, stack, 0, s, len, i)) { found = 1; break; }
        if (i == len) break;
        nnext = 0;
        uint32_t ngen = (uint32_t)((i + 1) & 0x7fffffff);
        for (size_t k = 0; k < ncur; k++) {
            const rx_inst *in = &re->prog[cur[k]];
            if (set_has(re->sets[in->x], s[i]) &&
                add_thread(re, next, &nnext, marks, ngen, stack, cur[k] + 1, s, len, i + 1)) {
                found = 1;
                break;
            }
        }
        if (found) break;
        uint32_t *t = cur; cur = next; next = t;
        ncur = nnext;
    }
    if (buf != small) free(buf);
    return found;
}
