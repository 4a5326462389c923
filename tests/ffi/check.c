/*
 * The C side of tests/ffi.rs: probes tables and a book through include/xqdb.h from several
 * threads and prints what it got, one line per position, for the Rust test to compare with
 * the Rust API; then the error cases, one "E label status message" line each.
 *
 * usage: check TABLES POSITIONS BOOK CORRUPT_DIR CORRUPT_WDL_FEN CORRUPT_DTM_FEN
 *              MISSING_DIR MISSING_BOOK BAD_BOOK
 * POSITIONS: lines "KIND SIDE BOARD FEN" with KIND T (tables) or B (book), SIDE 0 or 1,
 * BOARD 90 hex digits (one piece code per point, index rank * 9 + file).
 */
#include "xqdb.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 4
#define OUT_SIZE 8192

typedef struct {
    char kind;
    int side;
    uint8_t board[XQDB_BOARD_SIZE];
    char fen[256];
    char out[OUT_SIZE];
    size_t len;
} Item;

static const XqdbTables *tables;
static const XqdbBook *book;
static Item *items;
static size_t n_items;
static int fresh[THREADS];

static void put(Item *it, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(it->out + it->len, OUT_SIZE - it->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= OUT_SIZE - it->len) {
        fprintf(stderr, "output of one position too long\n");
        exit(3);
    }
    it->len += (size_t)n;
}

/* A status other than the expected one: say which call, the status and the message. */
static int expect(Item *it, const char *call, XqdbStatus got, XqdbStatus want) {
    if (got == want) return 1;
    put(it, " %s=%s:%s", call, xqdb_status_name(got), xqdb_last_error());
    return 0;
}

static void probe_tables(Item *it) {
    XqdbWdl w_fen, w_board, w_dtm, w_dtm_fen, w_dtc;
    int32_t dtm, dtm_fen, dtc;
    XqdbRootMove moves[XQDB_MAX_MOVES];
    size_t n = 0;
    int ok = expect(it, "wdl_fen", xqdb_probe_wdl_fen(tables, it->fen, &w_fen), XQDB_STATUS_OK)
        & expect(it, "wdl", xqdb_probe_wdl(tables, it->board, it->side, &w_board), XQDB_STATUS_OK)
        & expect(it, "dtm", xqdb_probe_dtm(tables, it->board, it->side, &w_dtm, &dtm),
                 XQDB_STATUS_OK)
        & expect(it, "dtm_fen", xqdb_probe_dtm_fen(tables, it->fen, &w_dtm_fen, &dtm_fen),
                 XQDB_STATUS_OK)
        & expect(it, "root",
                 xqdb_probe_root(tables, it->board, it->side, moves, XQDB_MAX_MOVES, &n),
                 XQDB_STATUS_OK)
        & expect(it, "dtc", xqdb_probe_dtc(tables, it->board, it->side, &w_dtc, &dtc),
                 XQDB_STATUS_NOT_AVAILABLE);
    if (!ok) return;
    put(it, "T %d %d %d %d %d %d %zu", (int)w_fen, (int)w_board, (int)w_dtm, (int)dtm,
        (int)w_dtm_fen, (int)dtm_fen, n);
    for (size_t i = 0; i < n; i++) {
        const XqdbRootMove *m = &moves[i];
        put(it, " %d-%d-%s:%d:%d:%d", m->from, m->to, m->iccs, (int)m->wdl, (int)m->dtm,
            (int)m->dtc);
    }
}

static void probe_book(Item *it) {
    XqdbBookMove a[XQDB_MAX_MOVES], b[XQDB_MAX_MOVES];
    size_t na = 0, nb = 0;
    if (!expect(it, "book_fen", xqdb_book_moves_fen(book, it->fen, a, XQDB_MAX_MOVES, &na),
                XQDB_STATUS_OK)
        || !expect(it, "book",
                   xqdb_book_moves(book, it->board, it->side, b, XQDB_MAX_MOVES, &nb),
                   XQDB_STATUS_OK))
        return;
    if (na != nb || memcmp(a, b, na * sizeof a[0]) != 0) {
        put(it, " FEN_AND_BOARD_DIFFER");
        return;
    }
    put(it, "B %zu", na);
    for (size_t i = 0; i < na; i++)
        put(it, " %d-%d-%s:%u:%u:%u:%u:%u", a[i].from, a[i].to, a[i].iccs, a[i].weight,
            a[i].games, a[i].wins, a[i].draws, a[i].losses);
}

static void *worker(void *arg) {
    int k = (int)(intptr_t)arg;
    /* the main thread failed many calls before: this thread's message starts empty */
    fresh[k] = xqdb_last_error()[0] == '\0';
    for (size_t i = (size_t)k; i < n_items; i += THREADS) {
        Item *it = &items[i];
        if (it->kind == 'T')
            probe_tables(it);
        else
            probe_book(it);
    }
    return NULL;
}

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

static void read_positions(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    size_t cap = 1024;
    items = calloc(cap, sizeof *items);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (n_items == cap) {
            cap *= 2;
            items = realloc(items, cap * sizeof *items);
            if (!items) exit(2);
        }
        Item *it = &items[n_items];
        memset(it, 0, sizeof *it);
        char board[128];
        if (sscanf(line, "%c %d %127s %255[^\n]", &it->kind, &it->side, board, it->fen) != 4
            || strlen(board) != XQDB_BOARD_SIZE) {
            fprintf(stderr, "bad line: %s", line);
            exit(2);
        }
        for (int i = 0; i < XQDB_BOARD_SIZE; i++) it->board[i] = (uint8_t)hex(board[i]);
        n_items++;
    }
    fclose(f);
}

/* One error case: print its label, status name and message. */
static void report(const char *label, XqdbStatus s) {
    printf("E %s %s %s\n", label, xqdb_status_name(s), s == XQDB_STATUS_OK ? "" : xqdb_last_error());
}

static void error_cases(char **argv) {
    const char *good_fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w";
    XqdbWdl w;
    int32_t d;
    bool present;
    static const char *bad_fens[][2] = {
        {"bad_fen_empty", ""},
        {"bad_fen_ranks", "3k5/9/9 w"},
        {"bad_fen_side", "3k5/9/9/9/9/9/9/9/4R4/4K4 x"},
        {"bad_fen_rank_width", "3k5/9/9/9/9/9/9/9/4R4/4K5 w"},
        {"bad_fen_letter", "3k5/9/9/9/9/9/9/9/4X4/4K4 w"},
        {"bad_fen_counter", "3k5/9/9/9/9/9/9/9/4R4/4K4 w - - x 1"},
    };
    for (size_t i = 0; i < sizeof bad_fens / sizeof bad_fens[0]; i++)
        report(bad_fens[i][0], xqdb_probe_wdl_fen(tables, bad_fens[i][1], &w));
    report("illegal_facing", xqdb_probe_wdl_fen(tables, "4k4/9/9/9/9/9/9/9/9/4K4 w", &w));
    report("illegal_check", xqdb_probe_wdl_fen(tables, "3k5/9/9/9/9/9/9/9/3R5/4K4 w", &w));
    uint8_t board[XQDB_BOARD_SIZE] = {0};
    board[4] = XQDB_PIECE_RED_KING;
    board[84] = XQDB_PIECE_BLACK_KING;
    board[13] = XQDB_PIECE_RED_ROOK;
    report("board_ok", xqdb_probe_wdl(tables, board, XQDB_SIDE_RED, &w));
    printf("V board_ok %d\n", (int)w);
    report("bad_side", xqdb_probe_wdl(tables, board, 2, &w));
    board[40] = 8;
    report("bad_board_code", xqdb_probe_wdl(tables, board, XQDB_SIDE_RED, &w));
    report("null_tables", xqdb_probe_wdl_fen(NULL, good_fen, &w));
    report("null_out", xqdb_probe_wdl_fen(tables, good_fen, NULL));
    report("null_fen", xqdb_probe_wdl_fen(tables, NULL, &w));
    report("dtc", xqdb_probe_dtc_fen(tables, good_fen, &w, &d));
    report("missing_table", xqdb_probe_wdl_fen(tables, "3k5/9/9/9/9/9/4P4/9/4C4/4K4 w", &w));
    XqdbRootMove one[1];
    size_t n = 0;
    report("root_small", xqdb_probe_root_fen(tables, good_fen, one, 1, &n));
    printf("V root_small %zu %s\n", n, one[0].iccs);
    report("has_krkaa", xqdb_tables_has(tables, "KRKAA", &present));
    printf("V has_krkaa %d\n", (int)present);
    report("has_kcpk", xqdb_tables_has(tables, "KCPK", &present));
    printf("V has_kcpk %d\n", (int)present);
    report("has_bad", xqdb_tables_has(tables, "KXK", &present));

    XqdbTables *t = NULL;
    report("missing_folder", xqdb_tables_open(argv[7], 0, &t));
    report("corrupt_open", xqdb_tables_open(argv[4], 0, &t));
    report("corrupt_header", xqdb_probe_wdl_fen(t, argv[5], &w));
    report("corrupt_truncated", xqdb_probe_dtm_fen(t, argv[6], &w, &d));
    xqdb_tables_close(t);
    xqdb_tables_close(NULL);

    XqdbBook *b = NULL;
    report("missing_book", xqdb_book_open(argv[8], &b));
    report("corrupt_book", xqdb_book_open(argv[9], &b));
    XqdbBookMove bm[1];
    report("book_small", xqdb_book_moves_fen(book, "startpos", bm, 1, &n));
    printf("V book_small %zu\n", n);
    report("book_null", xqdb_book_moves_fen(NULL, "startpos", bm, 1, &n));
    printf("V status_name %s %s\n", xqdb_status_name(XQDB_STATUS_BAD_FEN), xqdb_status_name(99));
    printf("V api %d %d %s\n", xqdb_api_version(), XQDB_API_VERSION, xqdb_version());
}

int main(int argc, char **argv) {
    if (argc != 10) {
        fprintf(stderr, "usage: check TABLES POSITIONS BOOK CORRUPT_DIR CORRUPT_WDL_FEN "
                        "CORRUPT_DTM_FEN MISSING_DIR MISSING_BOOK BAD_BOOK\n");
        return 2;
    }
    XqdbTables *t = NULL;
    XqdbBook *b = NULL;
    /* a small cache: blocks are dropped and read again while the threads probe */
    if (xqdb_tables_open(argv[1], 1 << 16, &t) != XQDB_STATUS_OK
        || xqdb_book_open(argv[3], &b) != XQDB_STATUS_OK) {
        fprintf(stderr, "open: %s\n", xqdb_last_error());
        return 1;
    }
    tables = t;
    book = b;
    read_positions(argv[2]);
    error_cases(argv);
    pthread_t threads[THREADS];
    for (int k = 0; k < THREADS; k++)
        if (pthread_create(&threads[k], NULL, worker, (void *)(intptr_t)k) != 0) return 1;
    for (int k = 0; k < THREADS; k++) pthread_join(threads[k], NULL);
    for (int k = 0; k < THREADS; k++) printf("F %d %d\n", k, fresh[k]);
    for (size_t i = 0; i < n_items; i++) printf("P %zu %s\n", i, items[i].out);
    xqdb_book_close(b);
    xqdb_tables_close(t);
    free(items);
    return 0;
}
