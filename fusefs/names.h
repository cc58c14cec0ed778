/**
 * @file names.h
 * The one owner of cellfs name escaping: how a row key or qualifier (any
 * bytes) becomes one path component and back. Pure functions; used by
 * path.c (decode), the readdir code (encode) and the long-name lookup.
 * Depends on nothing but libc, so tests/unit/test_fs_names.c links it alone.
 *
 * The scheme (also in man/cellfs.1, section NAMES):
 *  - Bytes are shown as they are when they are printable ASCII or part of a
 *    valid UTF-8 sequence (no overlongs, no surrogates, at most U+10FFFF)
 *    that is not a C1 control (U+0080..U+009F).
 *  - Written as %XX (uppercase hex): bytes 0x00-0x1F and 0x7F, '/', '%',
 *    every byte of an invalid UTF-8 sequence or of a C1 control.
 *  - The empty key is the name "%".
 *  - The keys ".", ".." and ".schema" start with "%2E" so they cannot be
 *    mistaken for the reserved names (other keys may start with '.', so the
 *    temporary files of rsync and editors work).
 *  - '@' is shown as-is unless the name would end in "@<digits>" (read as a
 *    version suffix q@<ts>); then that last '@' is written %40.
 *  - A name longer than FS_NAME_SHORT_MAX bytes is replaced by its longest
 *    prefix of whole escape units that fits FS_NAME_PREFIX_MAX bytes, then
 *    "%#" and 16 uppercase hex digits of fs_name_hash(key). Such a name is
 *    resolved by a prefix scan that compares the full encoding.
 * Decoding accepts only canonical names: decode(name) = k exactly when
 * encode(k) = name, so every key has one name and every name one key.
 */
#ifndef CELLFS_NAMES_H
#define CELLFS_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/** Longest path component the kernel accepts. */
#define FS_NAME_MAX 255
/** Longest name shown in full: leaves room for "@-9223372036854775808". */
#define FS_NAME_SHORT_MAX 234
/** Longest escaped prefix kept in a hashed name ("%#" + 16 hex follow). */
#define FS_NAME_PREFIX_MAX (FS_NAME_SHORT_MAX - 18)
/** Longest "@<ts>" suffix. */
#define FS_TS_TEXT_MAX 21

/** FNV-1a, 64 bits, of a key: the hash part of long names. */
uint64_t fs_name_hash(const uint8_t *key, size_t len);

/**
 * Encodes @p key as a file name into @p out, which has room for at least
 * FS_NAME_MAX + 1 bytes; the result is NUL-terminated and at most
 * FS_NAME_SHORT_MAX bytes long. Returns its length, or 0 when out of
 * memory (a name is never empty).
 */
size_t fs_name_encode(char *out, const uint8_t *key, size_t len);

/** A decoded name: the key itself, or for a hashed long name the bytes of
 *  its prefix and the hash of the full key. */
typedef struct fs_name_key {
    uint8_t bytes[FS_NAME_MAX];
    size_t len;
    bool hashed;
    uint64_t hash;
} fs_name_key;

/**
 * Decodes one path component (no '/', @p len bytes, not NUL-terminated).
 * Returns 0, -EINVAL for a name that is not the canonical encoding of any
 * key (a hashed name is checked later, against the key it resolves to) or
 * -ENAMETOOLONG above FS_NAME_SHORT_MAX (what statfs advertises).
 */
int fs_name_decode(fs_name_key *out, const char *name, size_t len);

/** True when fs_name_encode(key) equals the @p len bytes of @p name. */
bool fs_name_matches(const char *name, size_t len, const uint8_t *key, size_t key_len);

/**
 * Splits a "base@<ts>" component: when the text after the last '@' is
 * -?[0-9]+, *base_len is the length before it and *ts the timestamp and the
 * result is 1; the digits must be canonical (no leading zeros, no "-0",
 * within int64) or the result is -EINVAL. Without such a suffix: 0.
 */
int fs_name_split_version(const char *name, size_t len, size_t *base_len, int64_t *ts);

/** Parses a canonical decimal int64 (as above). 0 or -EINVAL. */
int fs_ts_parse(const char *text, size_t len, int64_t *out);

/** Formats "@<ts>" into @p out (FS_TS_TEXT_MAX + 1 bytes); returns length. */
size_t fs_ts_suffix(char *out, int64_t ts);

#endif
