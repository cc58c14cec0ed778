/*
 * Unit tests of the Bytes converters (convert.c): the text of each method
 * as Java prints it, Java's messages for bytes that do not fit, converter
 * specs after a qualifier, and the character counting that padding and
 * MAXLENGTH use.
 */
#include <stdint.h>
#include <string.h>

#include "convert.h"
#include "testutil.h"

/* The text of p[0..n) through converter c ("ERR:message" on failure). */
static const char *conv(sh_conv c, const void *p, size_t n) {
    static char out[256];
    sh_buf b = { NULL, 0, 0, false };
    char err[200];
    if (sh_conv_append(&b, c, p, n, err, sizeof err) < 0) snprintf(out, sizeof out, "ERR:%s", err);
    else snprintf(out, sizeof out, "%s", b.p ? b.p : "");
    sh_buf_free(&b);
    return out;
}

static const char *double_text(double d) {
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    unsigned char be[8];
    for (int i = 0; i < 8; i++) be[i] = (unsigned char)(bits >> (56 - 8 * i));
    return conv(SH_CONV_DOUBLE, be, 8);
}

static const char *float_text(float f) {
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    unsigned char be[4];
    for (int i = 0; i < 4; i++) be[i] = (unsigned char)(bits >> (24 - 8 * i));
    return conv(SH_CONV_FLOAT, be, 4);
}

static void test_numbers(void) {
    const unsigned char minus7[8] = { 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xF9 };
    CHECK(strcmp(conv(SH_CONV_LONG, minus7, 8), "-7") == 0);
    CHECK(strcmp(conv(SH_CONV_INT, minus7, 8), "-1") == 0);      /* the first 4 bytes */
    CHECK(strcmp(conv(SH_CONV_SHORT, minus7 + 6, 2), "-7") == 0);
    CHECK(strcmp(conv(SH_CONV_LONG, "abc", 3),
                 "ERR:offset (0) + length (8) exceed the capacity of the array: 3") == 0);
    CHECK(strcmp(conv(SH_CONV_SHORT, "a", 1),
                 "ERR:offset (0) + length (2) exceed the capacity of the array: 1") == 0);
    CHECK(strcmp(conv(SH_CONV_BOOLEAN, "\0", 1), "false") == 0);
    CHECK(strcmp(conv(SH_CONV_BOOLEAN, "ab", 2), "ERR:Array has wrong size: 2") == 0);
}

static void test_java_floats(void) {
    CHECK(strcmp(double_text(1.5), "1.5") == 0);
    CHECK(strcmp(double_text(100.0), "100.0") == 0);
    CHECK(strcmp(double_text(0.001), "0.001") == 0);
    CHECK(strcmp(double_text(0.0001), "1.0E-4") == 0);
    CHECK(strcmp(double_text(1e7), "1.0E7") == 0);
    CHECK(strcmp(double_text(9999999.0), "9999999.0") == 0);
    CHECK(strcmp(double_text(123456789.0), "1.23456789E8") == 0);
    CHECK(strcmp(double_text(-2.5e-10), "-2.5E-10") == 0);
    CHECK(strcmp(double_text(0.1), "0.1") == 0);
    CHECK(strcmp(double_text(0.0), "0.0") == 0);
    CHECK(strcmp(double_text(-0.0), "-0.0") == 0);
    CHECK(strcmp(double_text(1.0 / 0.0), "Infinity") == 0);
    CHECK(strcmp(float_text(0.1f), "0.1") == 0);
    CHECK(strcmp(float_text(3.4028235e38f), "3.4028235E38") == 0);
}

static void test_texts(void) {
    CHECK(strcmp(conv(SH_CONV_BINARY, "a\\\x01\x7f~", 5), "a\\x5C\\x01\\x7F~") == 0);
    CHECK(strcmp(conv(SH_CONV_HEX, "\x00\xab", 2), "00ab") == 0);
    /* a malformed byte becomes U+FFFD, valid UTF-8 stays */
    CHECK(strcmp(conv(SH_CONV_STRING, "caf\xc3\xa9\xff!", 7), "caf\xc3\xa9\xef\xbf\xbd!") == 0);
    CHECK(strcmp(conv(SH_CONV_STRING, "\xed\xa0\x80", 3), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd") == 0);
    CHECK_EQ(sh_text_width("caf\xc3\xa9", 5), 4);
    CHECK_EQ(sh_text_prefix("caf\xc3\xa9!", 6, 4), 5);
    CHECK_EQ(sh_text_prefix("abc", 3, 10), 3);
}

static void test_specs(void) {
    sh_conv c;
    char err[256];
    CHECK_EQ(sh_conv_parse_spec("toLong", 6, &c, err, sizeof err), 1);
    CHECK_EQ(c, SH_CONV_LONG);
    const char *full = "c(org.apache.hadoop.hbase.util.Bytes).toInt";
    CHECK_EQ(sh_conv_parse_spec(full, strlen(full), &c, err, sizeof err), 1);
    CHECK_EQ(c, SH_CONV_INT);
    CHECK_EQ(sh_conv_parse_spec("b", 1, &c, err, sizeof err), 0);   /* a qualifier 'a:b' */
    CHECK_EQ(sh_conv_parse_spec("toLnog", 6, &c, err, sizeof err), -1);
    CHECK(strstr(err, "toLnog") != NULL);
    const char *other = "c(com.example.F).format";
    CHECK_EQ(sh_conv_parse_spec(other, strlen(other), &c, err, sizeof err), -1);
    CHECK(strstr(err, "runs no Java") != NULL);
    CHECK_EQ(sh_conv_parse_spec("c(", 2, &c, err, sizeof err), -1);
}

int main(void) {
    test_numbers();
    test_java_floats();
    test_texts();
    test_specs();
    return test_finish("test_cellsh_convert");
}
