/*
 * Unit tests of the shell language (lexer.c, parser.c) and of the
 * import/export codecs (codec.c): strings and escapes, hashes, arrays,
 * brace-less trailing hashes, statement separators, incomplete input,
 * syntax errors, and byte-exact codec round trips.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "parser.h"
#include "testutil.h"

/* Parses the first statement of text; returns the result. */
static sh_parse_result parse1(const char *text, sh_command *cmd, sh_arena *a, char *err) {
    size_t pos = 0;
    return sh_parse(cmd, text, strlen(text), &pos, a, err, 256);
}

static void test_simple(void) {
    sh_arena a = SH_ARENA_INIT;
    sh_command c;
    char err[256];
    CHECK_EQ(parse1("put 'test', 'row1', 'cf:a', 'value1'\n", &c, &a, err), SH_PARSE_OK);
    CHECK(strcmp(c.name, "put") == 0);
    CHECK_EQ(c.nargs, 4);
    CHECK_EQ(c.args[0].kind, SH_STR);
    CHECK_BYTES(c.args[0].str, c.args[0].len, "test");
    CHECK_BYTES(c.args[3].str, c.args[3].len, "value1");

    CHECK_EQ(parse1("list", &c, &a, err), SH_PARSE_OK);
    CHECK(strcmp(c.name, "list") == 0);
    CHECK_EQ(c.nargs, 0);

    CHECK_EQ(parse1("put 't','r','f:q','v', 1421762485768", &c, &a, err), SH_PARSE_OK);
    CHECK_EQ(c.nargs, 5);
    CHECK_EQ(c.args[4].kind, SH_INT);
    CHECK(c.args[4].num == 1421762485768LL);

    CHECK_EQ(parse1("incr 't', 'r', 'f:q', -5", &c, &a, err), SH_PARSE_OK);
    CHECK(c.args[3].num == -5);
    CHECK_EQ(parse1("x 1_000, 0x1F", &c, &a, err), SH_PARSE_OK);
    CHECK(c.args[0].num == 1000);
    CHECK(c.args[1].num == 31);

    CHECK_EQ(parse1("get('t', 'r')", &c, &a, err), SH_PARSE_OK);
    CHECK(strcmp(c.name, "get") == 0);
    CHECK_EQ(c.nargs, 2);

    CHECK_EQ(parse1("   # only a comment\n\n", &c, &a, err), SH_PARSE_EMPTY);
    CHECK_EQ(parse1("scan 't' # trailing comment", &c, &a, err), SH_PARSE_OK);
    CHECK_EQ(c.nargs, 1);
    sh_arena_free(&a);
}

static void test_strings(void) {
    sh_arena a = SH_ARENA_INIT;
    sh_command c;
    char err[256];
    /* double quotes: Ruby escapes */
    CHECK_EQ(parse1("put \"a\\x00b\\n\\t\\x7f\\\\\\\"\\e\\s\\101\"", &c, &a, err), SH_PARSE_OK);
    CHECK_EQ(c.args[0].len, 11);
    CHECK(memcmp(c.args[0].str, "a\0b\n\t\x7f\\\"\x1b A", 11) == 0);
    CHECK_EQ(parse1("x \"\\u00e9\\u{1F600}\"", &c, &a, err), SH_PARSE_OK);
    CHECK_BYTES(c.args[0].str, c.args[0].len, "\xC3\xA9\xF0\x9F\x98\x80");
    /* single quotes: literal except \\ and \' */
    CHECK_EQ(parse1("x 'a\\x00\\n\\'q\\\\'", &c, &a, err), SH_PARSE_OK);
    CHECK_BYTES(c.args[0].str, c.args[0].len, "a\\x00\\n'q\\");
    /* '#' inside a string is not a comment; ';' inside is not a separator */
    CHECK_EQ(parse1("x 'a#b;c', \"d#e\"", &c, &a, err), SH_PARSE_OK);
    CHECK_BYTES(c.args[0].str, c.args[0].len, "a#b;c");
    CHECK_BYTES(c.args[1].str, c.args[1].len, "d#e");
    /* empty strings */
    CHECK_EQ(parse1("x '', \"\"", &c, &a, err), SH_PARSE_OK);
    CHECK_EQ(c.args[0].len, 0);
    CHECK_EQ(c.args[1].len, 0);
    /* bad escapes */
    CHECK_EQ(parse1("x \"\\xZZ\"", &c, &a, err), SH_PARSE_ERROR);
    CHECK(strstr(err, "hex") != NULL);
    CHECK_EQ(parse1("x \"\\u12\"", &c, &a, err), SH_PARSE_ERROR);
    sh_arena_free(&a);
}

static void test_hashes(void) {
    sh_arena a = SH_ARENA_INIT;
    sh_command c;
    char err[256];
    CHECK_EQ(parse1("create 'ns:t', {NAME => 'f', VERSIONS => 3, TTL => FOREVER}, 'g'", &c, &a,
                    err), SH_PARSE_OK);
    CHECK_EQ(c.nargs, 3);
    REQUIRE(c.args[1].kind == SH_HASH);
    CHECK_EQ(c.args[1].n, 3);
    CHECK_EQ(c.args[1].items[0].kind, SH_CONST);
    CHECK_BYTES(c.args[1].items[0].str, c.args[1].items[0].len, "NAME");
    CHECK_BYTES(c.args[1].items[1].str, c.args[1].items[1].len, "f");
    CHECK_EQ(c.args[1].items[3].num, 3);
    CHECK_EQ(c.args[1].items[5].kind, SH_CONST);
    CHECK_BYTES(c.args[1].items[5].str, c.args[1].items[5].len, "FOREVER");
    CHECK_EQ(c.args[2].kind, SH_STR);

    CHECK_EQ(parse1("scan 't', {COLUMNS => ['cf:a', 'cf:b'], TIMERANGE => [1, 5], "
                    "RAW => true, LIMIT => 2, FILTER => \"PrefixFilter('r')\"}", &c, &a, err),
             SH_PARSE_OK);
    REQUIRE(c.args[1].kind == SH_HASH);
    const sh_value *cols = &c.args[1].items[1];
    REQUIRE(cols->kind == SH_ARRAY);
    CHECK_EQ(cols->n, 2);
    CHECK_BYTES(cols->items[1].str, cols->items[1].len, "cf:b");
    CHECK_EQ(c.args[1].items[3].items[1].num, 5);

    /* brace-less trailing hash, Ruby style */
    CHECK_EQ(parse1("create 't', NAME => 'f', VERSIONS => 2", &c, &a, err), SH_PARSE_OK);
    CHECK_EQ(c.nargs, 2);
    REQUIRE(c.args[1].kind == SH_HASH);
    CHECK_EQ(c.args[1].n, 2);
    CHECK_EQ(parse1("alter 't', 'delete' => 'f'", &c, &a, err), SH_PARSE_OK);
    CHECK_EQ(c.nargs, 2);
    CHECK_EQ(c.args[1].kind, SH_HASH);

    /* empty hash and array, nesting */
    CHECK_EQ(parse1("x {}, [], [[1], {A => {B => 'c'}}]", &c, &a, err), SH_PARSE_OK);
    CHECK_EQ(c.args[0].n, 0);
    CHECK_EQ(c.args[1].n, 0);
    CHECK_EQ(c.args[2].n, 2);
    sh_arena_free(&a);
}

static void test_statements(void) {
    sh_arena a = SH_ARENA_INIT;
    sh_command c;
    char err[256];
    const char *text = "create 't', 'f'; put 't', 'r', 'f:a', 'v'\n\nscan 't'\n";
    size_t pos = 0, len = strlen(text);
    CHECK_EQ(sh_parse(&c, text, len, &pos, &a, err, sizeof err), SH_PARSE_OK);
    CHECK(strcmp(c.name, "create") == 0);
    CHECK_EQ(sh_parse(&c, text, len, &pos, &a, err, sizeof err), SH_PARSE_OK);
    CHECK(strcmp(c.name, "put") == 0);
    CHECK_EQ(sh_parse(&c, text, len, &pos, &a, err, sizeof err), SH_PARSE_OK);
    CHECK(strcmp(c.name, "scan") == 0);
    CHECK_EQ(sh_parse(&c, text, len, &pos, &a, err, sizeof err), SH_PARSE_EMPTY);
    CHECK_EQ(pos, len);

    /* continuation over lines inside brackets and after ',' / '=>' */
    const char *multi = "scan 't', {\n  LIMIT => 1,\n  RAW =>\n true\n}\nlist\n";
    pos = 0;
    CHECK_EQ(sh_parse(&c, multi, strlen(multi), &pos, &a, err, sizeof err), SH_PARSE_OK);
    CHECK_EQ(c.nargs, 2);
    CHECK_EQ(c.args[1].n, 2);
    CHECK_EQ(sh_parse(&c, multi, strlen(multi), &pos, &a, err, sizeof err), SH_PARSE_OK);
    CHECK(strcmp(c.name, "list") == 0);
    const char *trailing = "put 't',\n 'r', 'f:q',\n 'v'\n";
    pos = 0;
    CHECK_EQ(sh_parse(&c, trailing, strlen(trailing), &pos, &a, err, sizeof err), SH_PARSE_OK);
    CHECK_EQ(c.nargs, 4);
    const char *backslash = "put 't', 'r' \\\n , 'f:q', 'v'\n";
    pos = 0;
    CHECK_EQ(sh_parse(&c, backslash, strlen(backslash), &pos, &a, err, sizeof err), SH_PARSE_OK);
    CHECK_EQ(c.nargs, 4);

    /* incomplete input asks for more */
    static const char *const incomplete[] = {
        "scan 't', {LIMIT => 1", "put 't', 'r", "put 't',", "x [1, 2", "x {A =>",
        "get('t'", "x \"abc\\", "x 'a' \\",
    };
    for (size_t i = 0; i < sizeof incomplete / sizeof incomplete[0]; i++) {
        sh_parse_result r = parse1(incomplete[i], &c, &a, err);
        CHECK_EQ(r, SH_PARSE_INCOMPLETE);
        if (r != SH_PARSE_INCOMPLETE) fprintf(stderr, "  for: %s\n", incomplete[i]);
    }
    sh_arena_free(&a);
}

static void test_errors(void) {
    sh_arena a = SH_ARENA_INIT;
    sh_command c;
    char err[256];
    static const char *const bad[] = {
        "'put' 't'", "put 't' 'r'", "put 't',, 'r'", "x {A => 1 B => 2}", "x {A}",
        "x [1 2]", "x = 3", "x 1.5", "x 12abc", "put 't', @", "x 99999999999999999999",
        "x ]", "x {[1] => 2}", "get('t'))", "x \x01",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        sh_parse_result r = parse1(bad[i], &c, &a, err);
        CHECK_EQ(r, SH_PARSE_ERROR);
        CHECK(strncmp(err, "syntax error", 12) == 0);
        if (r != SH_PARSE_ERROR) fprintf(stderr, "  accepted: %s\n", bad[i]);
    }
    /* after an error the position skips the bad line, so a caller goes on */
    const char *text = "put 't' 'r'\nlist\n";
    size_t pos = 0;
    CHECK_EQ(sh_parse(&c, text, strlen(text), &pos, &a, err, sizeof err), SH_PARSE_ERROR);
    CHECK_EQ(sh_parse(&c, text, strlen(text), &pos, &a, err, sizeof err), SH_PARSE_OK);
    CHECK(strcmp(c.name, "list") == 0);
    sh_arena_free(&a);
}

static void test_codecs(void) {
    unsigned char all[256];
    for (int i = 0; i < 256; i++) all[i] = (unsigned char)i;

    /* \xNN text form */
    size_t tlen = 0, blen = 0;
    char *text = sh_bin_to_text(all, sizeof all, &tlen);
    REQUIRE(text != NULL);
    CHECK_EQ(strlen(text), tlen);
    for (size_t i = 0; i < tlen; i++) CHECK(text[i] >= 0x20 && text[i] <= 0x7E);
    CHECK(strstr(text, "\\x5C") != NULL);   /* the backslash itself */
    CHECK(sh_text_to_bin(text, tlen, &blen));
    CHECK_EQ(blen, 256);
    CHECK(memcmp(text, all, 256) == 0);
    free(text);
    char bad1[] = "abc\\", bad2[] = "a\\x4", bad3[] = "\\n", bad4[] = "\\xG0";
    CHECK(!sh_text_to_bin(bad1, strlen(bad1), &blen));
    CHECK(!sh_text_to_bin(bad2, strlen(bad2), &blen));
    CHECK(!sh_text_to_bin(bad3, strlen(bad3), &blen));
    CHECK(!sh_text_to_bin(bad4, strlen(bad4), &blen));

    /* TSV fields */
    char *buf = NULL;
    size_t size = 0;
    FILE *mem = open_memstream(&buf, &size);
    REQUIRE(mem != NULL);
    sh_tsv_write_field(mem, all, sizeof all, ',');
    fclose(mem);
    CHECK(memchr(buf, '\t', size) == NULL);
    CHECK(memchr(buf, '\n', size) == NULL);
    CHECK(memchr(buf, '\r', size) == NULL);
    CHECK(memchr(buf, ',', size) == NULL);
    size_t n = sh_tsv_unescape(buf, size);
    CHECK_EQ(n, 256);
    CHECK(memcmp(buf, all, 256) == 0);
    free(buf);
    char plain[] = "C:\\path\\q";   /* unknown escapes stay as they are */
    n = sh_tsv_unescape(plain, strlen(plain));
    CHECK_BYTES(plain, n, "C:\\path\\q");
}

int main(void) {
    test_simple();
    test_strings();
    test_hashes();
    test_statements();
    test_errors();
    test_codecs();
    return test_finish("test_cellsh_parser");
}
