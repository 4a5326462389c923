/* Probe xqdb tables and a book from C.
 * cc -Iinclude example.c -Ltarget/release -lxqdb -Wl,-rpath,$PWD/target/release -o example
 * ./example tables books/default.xqb */
#include <stdio.h>

#include "xqdb.h"

static const char *verdict(XqdbWdl w) {
    if (w >= XQDB_WDL_WIN_BY_RULE) return "win";
    if (w <= XQDB_WDL_LOSS_BY_RULE) return "loss";
    return "draw";
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "tables";
    const char *book_path = argc > 2 ? argv[2] : "books/default.xqb";
    const char *fen = "3k5/9/9/9/9/9/9/9/4R4/4K4 w"; /* rook against a bare king */

    XqdbTables *tb = NULL;
    XqdbStatus s = xqdb_tables_open(dir, 0, &tb);
    if (s != XQDB_STATUS_OK) {
        fprintf(stderr, "%s: %s\n", xqdb_status_name(s), xqdb_last_error());
        return 1;
    }

    /* the verdict and the distance to mate of a FEN */
    XqdbWdl wdl;
    int32_t dtm;
    s = xqdb_probe_dtm_fen(tb, fen, &wdl, &dtm);
    if (s != XQDB_STATUS_OK) {
        fprintf(stderr, "%s: %s\n", xqdb_status_name(s), xqdb_last_error());
        xqdb_tables_close(tb);
        return 1;
    }
    printf("%s for the side to move, mate in %d plies\n", verdict(wdl), (int)dtm);

    /* every legal move with its verdict, best first */
    XqdbRootMove moves[XQDB_MAX_MOVES];
    size_t n = 0;
    if (xqdb_probe_root_fen(tb, fen, moves, XQDB_MAX_MOVES, &n) == XQDB_STATUS_OK)
        for (size_t i = 0; i < n && i < 3; i++)
            printf("move %s: %s, mate in %d plies\n", moves[i].iccs, verdict(moves[i].wdl),
                   (int)moves[i].dtm);

    /* the same position as a board array: board[rank * 9 + file], rank 0 = Red's back rank */
    uint8_t board[XQDB_BOARD_SIZE] = {0};
    board[0 * 9 + 4] = XQDB_PIECE_RED_KING;   /* e0 */
    board[1 * 9 + 4] = XQDB_PIECE_RED_ROOK;   /* e1 */
    board[9 * 9 + 3] = XQDB_PIECE_BLACK_KING; /* d9 */
    if (xqdb_probe_wdl(tb, board, XQDB_SIDE_RED, &wdl) == XQDB_STATUS_OK)
        printf("board array: %s\n", verdict(wdl));

    /* errors come with a message */
    s = xqdb_probe_wdl_fen(tb, "4k4/9/9/9/9/9/9/9/9/4K4 w", &wdl);
    printf("kings facing: %s (%s)\n", xqdb_status_name(s), xqdb_last_error());
    xqdb_tables_close(tb);

    /* book moves with their weights, highest first */
    XqdbBook *book = NULL;
    s = xqdb_book_open(book_path, &book);
    if (s != XQDB_STATUS_OK) {
        fprintf(stderr, "%s: %s\n", xqdb_status_name(s), xqdb_last_error());
        return 1;
    }
    XqdbBookMove bm[XQDB_MAX_MOVES];
    if (xqdb_book_moves_fen(book, "startpos", bm, XQDB_MAX_MOVES, &n) == XQDB_STATUS_OK)
        for (size_t i = 0; i < n && i < 3; i++)
            printf("book %s: weight %u, %u games\n", bm[i].iccs, bm[i].weight, bm[i].games);
    xqdb_book_close(book);
    return 0;
}
