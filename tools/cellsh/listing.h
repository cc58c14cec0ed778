/*
 * The listings of list, list_namespace and list_namespace_tables: a header,
 * the names whose whole text matches an optional pattern, and the row
 * footer. Patterns are Java regular expressions, as HBase compiles them
 * with Pattern.compile: POSIX extended syntax plus Java's \d \w \s (and \D
 * \W \S) classes and a leading (?i). Implemented in listing.c; used by
 * cmd_table.c and cmd_namespace.c.
 */
#ifndef CELLSH_LISTING_H
#define CELLSH_LISTING_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>

#include "shell.h"

/* Compiles the optional pattern argument args[i] to match whole names, as
 * Java's Matcher.matches does; *have tells whether there was one (then
 * regfree it). Returns 0, or -1 after an ERROR: line. */
int sh_name_filter(cellsh *sh, const sh_command *cmd, size_t i, regex_t *re, bool *have);
/* Prints @p header, the names that match @p re (NULL: all) and the row
 * footer; @p strip drops an "ns:" prefix. Returns 0. */
int sh_print_name_list(cellsh *sh, const char *header, char **names, const regex_t *re,
                       bool strip);

#endif
