/*
 * libFuzzer target: the cellsh lexer and statement parser
 * (tools/cellsh/lexer.c, parser.c): the input is lexed to its end, then
 * parsed statement by statement as the REPL does; every parse must move
 * forward.
 */
#include "fuzz_util.h"

#include "lexer.h"
#include "parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 8192)
        return 0;
    const char *text = (const char *)data;
    sh_arena a = SH_ARENA_INIT;
    sh_lexer lx;
    sh_lexer_init(&lx, text, size, &a);
    sh_token tok;
    char buf[128];
    for (size_t n = 0; n <= size + 1; n++) {
        sh_token_kind k = sh_lex(&lx, &tok);
        (void)sh_token_describe(&tok, buf, sizeof buf);
        if (k == TK_EOF || k == TK_ERROR || k == TK_INCOMPLETE)
            break;
    }
    sh_arena_free(&a);

    size_t pos = 0;
    char err[256];
    while (pos < size) {
        sh_arena b = SH_ARENA_INIT;
        sh_command cmd;
        size_t before = pos;
        sh_parse_result r = sh_parse(&cmd, text, size, &pos, &b, err, sizeof err);
        sh_arena_free(&b);
        if (r == SH_PARSE_INCOMPLETE)
            break;
        if (pos <= before || pos > size)
            abort();   /* no progress: the REPL would loop */
    }
    return 0;
}
