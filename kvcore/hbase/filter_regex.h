/**
 * @file filter_regex.h
 * The matcher behind the filter language's 'regexstring:' comparator
 * (HBase's RegexStringComparator: Java's Pattern with DOTALL, found
 * anywhere in the value). A backtracking-free automaton (one pass over the
 * value, a set of program positions per byte), so a hostile pattern cannot
 * make a scan slow or big: compile refuses patterns whose program would
 * exceed KV_REGEX_MAX_PROGRAM instructions, and matching costs at most
 * (value length + 1) x program size steps. libc's regcomp is not used
 * (a 59-byte pattern drove it to gigabytes; issue 11).
 *
 * The subset of Java's syntax understood: literals and escaped
 * metacharacters, \t \n \r \f \a \e \xhh \0ooo, '.', classes [...] with
 * ranges and negation, \d \D \w \W \s \S (ASCII, as Java's defaults),
 * groups (...) (?:...) (?<name>...), alternation |, quantifiers * + ? {n}
 * {n,} {n,m} and their lazy forms (same match/no-match answer), anchors ^ $
 * \A \z \Z, word boundaries \b \B, \Q...\E quoting, and the flag (?i)
 * (ASCII case-insensitive; also (?-i) and (?i:...)). Everything else Java
 * has (backreferences, lookaround, possessive quantifiers, \p{...}, class
 * union and intersection, other flags) is refused with a message naming
 * it, never misread. Values are matched as bytes, each byte one character.
 */
#ifndef KV_HBASE_FILTER_REGEX_H
#define KV_HBASE_FILTER_REGEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest program compile accepts (instructions, after expanding {n,m}). */
#define KV_REGEX_MAX_PROGRAM 20000
/* Longest pattern compile accepts (bytes): the parser and the code
   generator recurse along it. */
#define KV_REGEX_MAX_PATTERN 4096

typedef struct kv_regex kv_regex;

/* Compiles pattern[0..len). On success returns 0 and sets *out (free with
   kv_regex_free). On failure returns -1, leaves *out NULL and writes a
   message (what is wrong and at which offset) to err; -2 on out of memory. */
int kv_regex_compile(kv_regex **out, const char *pattern, size_t len, char *err, size_t errlen);

/* Whether the pattern matches somewhere in s[0..len) (Java's find()).
   Needs no locking: a compiled pattern is immutable; the scratch space is
   allocated per call. Returns -1 on out of memory. */
int kv_regex_find(const kv_regex *re, const uint8_t *s, size_t len);

void kv_regex_free(kv_regex *re);

#endif
