/*
 * xqdb.h: probe xqdb endgame tablebases and opening books from C or C++.
 *
 * Link with -lxqdb (libxqdb.so) or with libxqdb.a plus
 * -lgcc_s -lutil -lrt -lpthread -lm -ldl -lc; both are built by `cargo build --release`
 * into target/release/.
 *
 * Positions. Every probe takes a position either as a FEN string (`startpos` is accepted)
 * or as a board array plus the side to move:
 *   uint8_t board[XQDB_BOARD_SIZE];   board[rank * 9 + file]
 *   file 0..8 = a..i from Red's left, rank 0..9 from Red's back rank (ICCS: e0 is Red's
 *   king's start = index 4, e9 Black's = index 85); each byte an XqdbPiece code
 *   (0 empty, 1-7 Red K A B N R C P, 9-15 Black K A B N R C P);
 *   side: XQDB_SIDE_RED (0) or XQDB_SIDE_BLACK (1) to move.
 * Moves come back as from/to squares in the same numbering and as ICCS text ("h2e2").
 *
 * Errors. Every call that can fail returns an XqdbStatus; XQDB_STATUS_OK (0) is success.
 * On failure xqdb_last_error() gives a message for the calling thread, and outputs are
 * left untouched (except the documented partial results of XQDB_STATUS_BUFFER_TOO_SMALL).
 * Bad input is always reported, never undefined behaviour: NULL pointers, a side other than
 * 0/1, a byte that is no piece code, an unreadable FEN, an illegal position, a missing
 * folder, table or book, a corrupt file. A panic inside the library is caught and returned
 * as XQDB_STATUS_INTERNAL.
 *
 * Threads. Handles (XqdbTables, XqdbBook) may be shared by any number of threads probing at
 * once; tables are memory-mapped on first use and decompressed blocks are cached in one
 * bounded cache per handle. Open and close a handle while no other thread uses it. The
 * library has no global state besides the handles and one error message per thread.
 *
 * Verdicts. XqdbWdl is a signed scale (loss < 0 = draw < win) with values reserved for
 * repetition-rule and move-count-rule outcomes; test ranges, not equality (see XqdbWdl).
 */


#ifndef XQDB_H
#define XQDB_H

/* Generated from src/ffi by cbindgen (cbindgen.toml): do not edit by hand. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/**
 * Version of the C API described by this header; raised when a function or a struct
 * changes incompatibly (adding a status or verdict value does not raise it).
 */
#define XQDB_API_VERSION 1

/**
 * Points of the board: the length of a board array.
 */
#define XQDB_BOARD_SIZE 90

/**
 * Most legal moves of any position: a `moves` array of this size always suffices.
 */
#define XQDB_MAX_MOVES 128

/**
 * What a call did. Every function that can fail returns one; on anything but
 * `XQDB_STATUS_OK`, `xqdb_last_error()` on the same thread says what and where.
 * New codes may be added at the end in later versions: treat an unknown code as an error.
 */
enum XqdbStatus
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : int32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * Success.
   */
  XQDB_STATUS_OK = 0,
  /**
   * A pointer the call needs is NULL.
   */
  XQDB_STATUS_NULL_ARGUMENT = 1,
  /**
   * An argument out of range: a side other than 0 or 1, a byte of the board that is no
   * piece code, a material name that cannot be read, a string that is not UTF-8.
   */
  XQDB_STATUS_BAD_ARGUMENT = 2,
  /**
   * A FEN that cannot be read (bad board field, side to move, counters).
   */
  XQDB_STATUS_BAD_FEN = 3,
  /**
   * A readable position that is not legal (kings facing, the side not to move in check,
   * too much material, a piece on a point it can never reach, a missing king).
   */
  XQDB_STATUS_ILLEGAL_POSITION = 4,
  /**
   * The table folder or the book file does not exist.
   */
  XQDB_STATUS_NOT_FOUND = 5,
  /**
   * No table for the position's material (or one of the materials its captures lead to)
   * in the folder.
   */
  XQDB_STATUS_MISSING_TABLE = 6,
  /**
   * A table or book file that is corrupt, cut short, of another format version or of
   * another material than its name says. Never a wrong value instead.
   */
  XQDB_STATUS_CORRUPT = 7,
  /**
   * A file that exists but cannot be read or mapped.
   */
  XQDB_STATUS_IO = 8,
  /**
   * The metric is not available: DTC probes answer this until DTC tables exist.
   */
  XQDB_STATUS_NOT_AVAILABLE = 9,
  /**
   * The output array is too small; the count says how many entries are needed.
   */
  XQDB_STATUS_BUFFER_TOO_SMALL = 10,
  /**
   * An internal error (a Rust panic caught at the boundary); the handle stays usable.
   */
  XQDB_STATUS_INTERNAL = 11,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum XqdbStatus XqdbStatus;
#else
typedef int32_t XqdbStatus;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * The verdict of a position for the side to move (or of a move for the side making it).
 *
 * The scale is signed and ordered: the higher, the better for the side it speaks for; 0 is
 * a draw. This version of xqdb returns `XQDB_WDL_LOSS`, `XQDB_WDL_DRAW`, `XQDB_WDL_WIN`
 * and, from tables of rule set 1,
 * - `XQDB_WDL_WIN_BY_RULE` / `XQDB_WDL_LOSS_BY_RULE`: decided by the repetition rules (the
 *   loser's only way to avoid mate is a forbidden perpetual check or chase; rule set 0
 *   would call the position a draw).
 *
 * `XQDB_WDL_CURSED_WIN` / `XQDB_WDL_BLESSED_LOSS` are reserved: a mate exists but a
 * move-count rule reaches the draw first.
 *
 * Code written today keeps working when they appear if it tests ranges, not values:
 * `v >= XQDB_WDL_WIN_BY_RULE` is a win, `v <= XQDB_WDL_LOSS_BY_RULE` a loss, anything
 * between is a draw in practice. Values beyond -3..3 may be added later with the same
 * meaning of their sign.
 */
enum XqdbWdl
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : int32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * Mated with best play.
   */
  XQDB_WDL_LOSS = -3,
  /**
   * Mated with best play, and lost only through the repetition rules (rule set 0 would
   * call it a draw).
   */
  XQDB_WDL_LOSS_BY_RULE = -2,
  /**
   * Reserved: mated with best play, but a move-count rule draws first.
   */
  XQDB_WDL_BLESSED_LOSS = -1,
  /**
   * Neither side can force mate.
   */
  XQDB_WDL_DRAW = 0,
  /**
   * Reserved: mates with best play, but a move-count rule draws first.
   */
  XQDB_WDL_CURSED_WIN = 1,
  /**
   * Mates with best play, won only through the repetition rules (rule set 0 would call it
   * a draw).
   */
  XQDB_WDL_WIN_BY_RULE = 2,
  /**
   * Mates with best play.
   */
  XQDB_WDL_WIN = 3,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum XqdbWdl XqdbWdl;
#else
typedef int32_t XqdbWdl;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * The byte of a board array for each piece: 0 for an empty point, 1-7 for Red's king,
 * advisor, elephant, horse, rook, cannon and pawn, 9-15 for Black's in the same order
 * (Black's code is Red's plus 8). Any other byte is refused with
 * `XQDB_STATUS_BAD_ARGUMENT`.
 */
enum XqdbPiece
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : uint8_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * No piece.
   */
  XQDB_PIECE_EMPTY = 0,
  /**
   * Red king.
   */
  XQDB_PIECE_RED_KING = 1,
  /**
   * Red advisor.
   */
  XQDB_PIECE_RED_ADVISOR = 2,
  /**
   * Red elephant.
   */
  XQDB_PIECE_RED_ELEPHANT = 3,
  /**
   * Red horse.
   */
  XQDB_PIECE_RED_HORSE = 4,
  /**
   * Red rook.
   */
  XQDB_PIECE_RED_ROOK = 5,
  /**
   * Red cannon.
   */
  XQDB_PIECE_RED_CANNON = 6,
  /**
   * Red pawn.
   */
  XQDB_PIECE_RED_PAWN = 7,
  /**
   * Black king.
   */
  XQDB_PIECE_BLACK_KING = 9,
  /**
   * Black advisor.
   */
  XQDB_PIECE_BLACK_ADVISOR = 10,
  /**
   * Black elephant.
   */
  XQDB_PIECE_BLACK_ELEPHANT = 11,
  /**
   * Black horse.
   */
  XQDB_PIECE_BLACK_HORSE = 12,
  /**
   * Black rook.
   */
  XQDB_PIECE_BLACK_ROOK = 13,
  /**
   * Black cannon.
   */
  XQDB_PIECE_BLACK_CANNON = 14,
  /**
   * Black pawn.
   */
  XQDB_PIECE_BLACK_PAWN = 15,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum XqdbPiece XqdbPiece;
#else
typedef uint8_t XqdbPiece;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * The side to move in the board-array calls.
 */
enum XqdbSide
#if defined(__cplusplus) || __STDC_VERSION__ >= 202311L
  : int32_t
#endif // defined(__cplusplus) || __STDC_VERSION__ >= 202311L
 {
  /**
   * Red (moves first, ranks 0-4 at the start).
   */
  XQDB_SIDE_RED = 0,
  /**
   * Black.
   */
  XQDB_SIDE_BLACK = 1,
};
#ifndef __cplusplus
#if __STDC_VERSION__ >= 202311L
typedef enum XqdbSide XqdbSide;
#else
typedef int32_t XqdbSide;
#endif // __STDC_VERSION__ >= 202311L
#endif // __cplusplus

/**
 * An opened book file. Look-ups through one handle may run on any number of threads at
 * once; closing must wait until they have returned.
 */
typedef struct XqdbBook XqdbBook;

/**
 * An opened table folder. Probes through one handle may run on any number of threads at
 * once; closing must wait until they have returned.
 */
typedef struct XqdbTables XqdbTables;

/**
 * One book move with its statistics, from the side that makes it.
 */
typedef struct XqdbBookMove {
  /**
   * Origin square, `rank * 9 + file`.
   */
  uint8_t from;
  /**
   * Destination square.
   */
  uint8_t to;
  /**
   * The move in ICCS, NUL-terminated: `"h2e2"`.
   */
  char iccs[6];
  /**
   * Weight for picking: pick a move with probability weight / (sum of the weights), or
   * take the first (highest weight) one.
   */
  uint32_t weight;
  /**
   * Games of the collection that played it here.
   */
  uint32_t games;
  /**
   * Of those, won by the side that played it.
   */
  uint32_t wins;
  /**
   * Drawn.
   */
  uint32_t draws;
  /**
   * Lost (games with an unknown result are in none of the three).
   */
  uint32_t losses;
} XqdbBookMove;

/**
 * One legal move of a root probe with its verdict for the side that makes it.
 */
typedef struct XqdbRootMove {
  /**
   * Origin square, `rank * 9 + file` (0 = a0, Red's back rank left corner; 89 = i9).
   */
  uint8_t from;
  /**
   * Destination square, same numbering.
   */
  uint8_t to;
  /**
   * The move in ICCS, NUL-terminated: `"h2e2"`.
   */
  char iccs[6];
  /**
   * Verdict for the side making the move (see `XqdbWdl`).
   */
  XqdbWdl wdl;
  /**
   * Plies to mate counted from before the move (odd: the mover mates, even: the mover is
   * mated); -1 for a draw.
   */
  int32_t dtm;
  /**
   * Plies to the next capture or mate with best play; -1 until DTC tables exist.
   */
  int32_t dtc;
} XqdbRootMove;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

/**
 * The library's version, e.g. `"0.1.0"` (a static string).
 */
const char *xqdb_version(void);

/**
 * The C API version the library was built with (`XQDB_API_VERSION` of its header).
 */
int32_t xqdb_api_version(void);

/**
 * The message of the last call that failed on the calling thread: what went wrong and
 * where (file, square, FEN field). Empty before any failure. A successful call leaves it
 * as it was. The string belongs to the library and stays valid until the next failing
 * call on the same thread; copy it to keep it.
 */
const char *xqdb_last_error(void);

/**
 * The name of a status code as the header spells it (`"XQDB_STATUS_BAD_FEN"`), or
 * `"XQDB_STATUS_UNKNOWN"` for a code this version does not know. A static string.
 */
const char *xqdb_status_name(int32_t status);

/**
 * Open a book file (`.xqb`, as `xqdb book build` writes it). The whole file is checked
 * (magic, version, Zobrist scheme, sizes, checksum) and memory-mapped. Fails with
 * `XQDB_STATUS_NOT_FOUND` when the file does not exist, `XQDB_STATUS_CORRUPT` when it is
 * not a valid book.
 *
 * # Safety
 * `path` is a NUL-terminated string; `out` points to writable storage for a pointer.
 */
XqdbStatus xqdb_book_open(const char *path, struct XqdbBook **out);

/**
 * Close a book opened by `xqdb_book_open` (NULL is accepted and ignored).
 *
 * # Safety
 * `book` is NULL or a handle from `xqdb_book_open`, closed only once, with no look-up
 * running.
 */
void xqdb_book_close(struct XqdbBook *book);

/**
 * The book moves of a position (board array and side to move, as `xqdb_probe_wdl`),
 * highest weight first, in the position's own orientation (a position and its mirror
 * image share one entry), only legal moves. A position not in the book gives
 * `*count = 0` and `XQDB_STATUS_OK`. `capacity`, `moves` and `*count` behave as in
 * `xqdb_probe_root`.
 *
 * # Safety
 * `book` is a live handle; `board` points to 90 readable bytes; `moves` holds `capacity`
 * writable entries; `count` is writable.
 */
XqdbStatus xqdb_book_moves(const struct XqdbBook *book,
                           const uint8_t *board,
                           int32_t side,
                           struct XqdbBookMove *moves,
                           size_t capacity,
                           size_t *count);

/**
 * The book moves of a position given as a FEN (`startpos` is accepted).
 *
 * # Safety
 * `book` is a live handle; `fen` a NUL-terminated string; `moves` holds `capacity`
 * writable entries; `count` is writable.
 */
XqdbStatus xqdb_book_moves_fen(const struct XqdbBook *book,
                               const char *fen,
                               struct XqdbBookMove *moves,
                               size_t capacity,
                               size_t *count);

/**
 * Open the table folder `dir` (a NUL-terminated path). Nothing is read until the first
 * probe: each table file is opened and memory-mapped when a position of its material is
 * first probed, and decompressed blocks are kept in a cache of at most `cache_bytes` bytes
 * shared by all threads (0: the default, 64 MiB).
 *
 * On success `*out` is a handle to give to `xqdb_tables_close`. Fails with
 * `XQDB_STATUS_NOT_FOUND` when `dir` does not exist or is not a folder.
 *
 * # Safety
 * `dir` is a NUL-terminated string; `out` points to writable storage for a pointer.
 */
XqdbStatus xqdb_tables_open(const char *dir, size_t cache_bytes, struct XqdbTables **out);

/**
 * Close a table folder opened by `xqdb_tables_open` (NULL is accepted and ignored). No
 * probe through the handle may be running or start afterwards.
 *
 * # Safety
 * `tables` is NULL or a handle from `xqdb_tables_open`, closed only once.
 */
void xqdb_tables_close(struct XqdbTables *tables);

/**
 * Whether both files (WDL and DTM) of a material's table are in the folder, e.g.
 * `"KRKAA"` (Red's pieces from its king, then Black's; a material and its colour swap
 * share one table). Only checks that the files exist; a probe checks their content.
 *
 * # Safety
 * `tables` is a live handle; `material` a NUL-terminated string; `present` writable.
 */
XqdbStatus xqdb_tables_has(const struct XqdbTables *tables, const char *material, bool *present);

/**
 * WDL probe: the verdict for the side to move of the position given as a board array
 * (`board[rank * 9 + file]`, 90 bytes of `XqdbPiece` codes, rank 0 = Red's back rank, file
 * 0 = file a on Red's left) and `side` (0 Red, 1 Black to move). This is the probe for the
 * search: after the first probe of a block it reads memory only.
 *
 * Fails with `XQDB_STATUS_MISSING_TABLE` when the folder has no table for the material;
 * `*wdl` is written only on success.
 *
 * # Safety
 * `tables` is a live handle; `board` points to 90 readable bytes; `wdl` is writable.
 */
XqdbStatus xqdb_probe_wdl(const struct XqdbTables *tables,
                          const uint8_t *board,
                          int32_t side,
                          XqdbWdl *wdl);

/**
 * WDL probe of a position given as a FEN (`startpos` is accepted).
 *
 * # Safety
 * `tables` is a live handle; `fen` a NUL-terminated string; `wdl` writable.
 */
XqdbStatus xqdb_probe_wdl_fen(const struct XqdbTables *tables, const char *fen, XqdbWdl *wdl);

/**
 * DTM probe: the verdict and the distance to mate in plies with best play (odd when the
 * side to move mates, even when it is mated, 0 when it has no legal move; -1 for a draw).
 * Reads both the WDL and the DTM file of the material.
 *
 * # Safety
 * `tables` is a live handle; `board` points to 90 readable bytes; `wdl`, `dtm` writable.
 */
XqdbStatus xqdb_probe_dtm(const struct XqdbTables *tables,
                          const uint8_t *board,
                          int32_t side,
                          XqdbWdl *wdl,
                          int32_t *dtm);

/**
 * DTM probe of a position given as a FEN.
 *
 * # Safety
 * `tables` is a live handle; `fen` a NUL-terminated string; `wdl`, `dtm` writable.
 */
XqdbStatus xqdb_probe_dtm_fen(const struct XqdbTables *tables,
                              const char *fen,
                              XqdbWdl *wdl,
                              int32_t *dtm);

/**
 * DTC probe: the verdict and the distance in plies to the next capture or mate with best
 * play (the winner converts fastest, the loser delays; -1 for a draw). Reads the WDL, DTM
 * and DTC (`.xqc`) files of the material; a lost position also probes the positions after
 * its moves. Without a DTC file it returns `XQDB_STATUS_NOT_AVAILABLE` and writes nothing:
 * fall back to `xqdb_probe_dtm` on that code.
 *
 * # Safety
 * `tables` is a live handle; `board` points to 90 readable bytes; `wdl`, `dtc` writable.
 */
XqdbStatus xqdb_probe_dtc(const struct XqdbTables *tables,
                          const uint8_t *board,
                          int32_t side,
                          XqdbWdl *wdl,
                          int32_t *dtc);

/**
 * DTC probe of a position given as a FEN (see `xqdb_probe_dtc`).
 *
 * # Safety
 * `tables` is a live handle; `fen` a NUL-terminated string; `wdl`, `dtc` writable.
 */
XqdbStatus xqdb_probe_dtc_fen(const struct XqdbTables *tables,
                              const char *fen,
                              XqdbWdl *wdl,
                              int32_t *dtc);

/**
 * Root probe: every legal move with its verdict and distance to mate for the side making
 * it, best first (fastest mates, then draws, then the slowest losses), written to
 * `moves[0 .. *count]`. A position without legal moves gives `*count = 0` (it is lost).
 *
 * `capacity` is the number of entries `moves` holds (`XQDB_MAX_MOVES` always suffices;
 * `moves` may be NULL when `capacity` is 0). When there are more moves than that, the best
 * `capacity` ones are written, `*count` is set to the number of legal moves and the call
 * returns `XQDB_STATUS_BUFFER_TOO_SMALL`. Needs the tables of the material and of every
 * material a capture leads to.
 *
 * # Safety
 * `tables` is a live handle; `board` points to 90 readable bytes; `moves` holds
 * `capacity` writable entries; `count` is writable.
 */
XqdbStatus xqdb_probe_root(const struct XqdbTables *tables,
                           const uint8_t *board,
                           int32_t side,
                           struct XqdbRootMove *moves,
                           size_t capacity,
                           size_t *count);

/**
 * Root probe of a position given as a FEN (see `xqdb_probe_root`).
 *
 * # Safety
 * `tables` is a live handle; `fen` a NUL-terminated string; `moves` holds `capacity`
 * writable entries; `count` is writable.
 */
XqdbStatus xqdb_probe_root_fen(const struct XqdbTables *tables,
                               const char *fen,
                               struct XqdbRootMove *moves,
                               size_t capacity,
                               size_t *count);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* XQDB_H */
