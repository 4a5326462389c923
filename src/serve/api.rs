//! The JSON answers of the API, computed from the library; no HTTP here beyond the status
//! code an error carries.
//!
//! Conventions (those of the chess tablebase APIs): `category` and `dtm` of the position are
//! from the side to move's point of view, `dtm` signed in plies (positive: the side to move
//! mates, negative: it is mated, 0: it is mated now); each move's `category` and `dtm` are
//! those of the position after the move, so from the opponent's point of view (the best
//! move for the mover is a `loss` for the opponent). Moves come best first for the mover.

use super::{Catalogue, State};
use crate::board::notation::to_chinese;
use crate::board::{Color, Move, Position};
use crate::book::Book;
use crate::index::Material;
use crate::tablebase::table::table_material;
use crate::tablebase::values::{Ruling, Verdict};
use crate::tablebase::{ProbeError, Wdl};
use axum::http::StatusCode;
use serde::Serialize;

/// An error answered as `{"error": message}` with a status code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// What went wrong, for the client.
    pub message: String,
}

impl ApiError {
    /// 400 Bad Request.
    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    /// 404 Not Found.
    pub fn not_found(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    /// 500 Internal Server Error.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }

    /// 503 Service Unavailable.
    pub fn unavailable(message: impl Into<String>) -> ApiError {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: message.into(),
        }
    }
}

/// Read the `fen` parameter: present, not longer than `max_len`, a legal position.
pub fn parse_fen(fen: Option<&str>, max_len: usize) -> Result<Position, ApiError> {
    let fen = fen.ok_or_else(|| ApiError::bad_request("missing query parameter 'fen'"))?;
    if fen.len() > max_len {
        return Err(ApiError::bad_request(format!(
            "bad FEN: {} bytes, at most {max_len} are accepted",
            fen.len()
        )));
    }
    Position::from_fen(fen).map_err(|e| ApiError::bad_request(format!("bad FEN: {e}")))
}

/// A move's names.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct MoveNames {
    /// Coordinates as the UCI and UCCI engines write them (`h2e2`).
    pub uci: String,
    /// ICCS (`H2-E2`).
    pub iccs: String,
    /// Chinese notation (`炮二平五`).
    pub chinese: String,
}

/// ICCS form of a move: `H2-E2`.
pub fn iccs(m: Move) -> String {
    format!(
        "{}-{}",
        m.from().to_string().to_uppercase(),
        m.to().to_string().to_uppercase()
    )
}

impl MoveNames {
    /// The names of legal move `m` of `pos`.
    pub fn of(pos: &Position, m: Move) -> MoveNames {
        MoveNames {
            uci: m.to_string(),
            iccs: iccs(m),
            chinese: to_chinese(pos, m).unwrap_or_default(),
        }
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Red => "red",
        Color::Black => "black",
    }
}

// ---- /api/position ----

/// A legal move and the position it leads to.
#[derive(Serialize, Debug)]
pub struct PositionMove {
    /// Names.
    #[serde(flatten)]
    pub names: MoveNames,
    /// FEN after the move.
    pub fen: String,
}

/// `GET /api/position`: the position as the board shows it, with its legal moves.
#[derive(Serialize, Debug)]
pub struct PositionReply {
    /// The FEN, normalised.
    pub fen: String,
    /// `red` or `black`.
    pub turn: &'static str,
    /// The side to move is in check.
    pub check: bool,
    /// In check with no legal move.
    pub checkmate: bool,
    /// No legal move without being in check (a loss in Xiangqi too).
    pub stalemate: bool,
    /// Material signature, Red first (e.g. `KRKN`).
    pub material: String,
    /// Whether the tablebases served cover this material.
    pub tablebase: bool,
    /// Legal moves.
    pub moves: Vec<PositionMove>,
}

/// The answer of `/api/position`.
pub fn position(state: &State, pos: &Position) -> PositionReply {
    let moves: Vec<PositionMove> = pos
        .legal_moves()
        .iter()
        .map(|&m| PositionMove {
            names: MoveNames::of(pos, m),
            fen: pos.after(m).to_fen(),
        })
        .collect();
    let material = Material::of_position(pos);
    let check = pos.in_check();
    PositionReply {
        fen: pos.to_fen(),
        turn: color_name(pos.turn()),
        check,
        checkmate: check && moves.is_empty(),
        stalemate: !check && moves.is_empty(),
        material: material.to_string(),
        tablebase: state.tables.as_ref().is_some_and(|c| c.covers(material)),
        moves,
    }
}

// ---- /api/tablebase ----

/// The repetition rule behind a verdict: who must deviate and why.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct RuleReply {
    /// `red` or `black`: the side the rules forbid to go on.
    pub violator: &'static str,
    /// `perpetual-check` or `perpetual-chase`.
    pub violation: &'static str,
}

/// One move of a tablebase answer (values of the position after it, opponent's view).
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct TablebaseMove {
    /// Names.
    #[serde(flatten)]
    pub names: MoveNames,
    /// Category after the move, for the opponent.
    pub category: &'static str,
    /// Signed distance to mate after the move, in plies, for the opponent (null: draw).
    pub dtm: Option<i32>,
    /// Signed distance to conversion (plies to the next capture or mate) after the move, for
    /// the opponent (null: draw, or no DTC file for that table).
    pub dtc: Option<i32>,
    /// Set when the rules forbid the move here: it continues the mover's perpetual check or
    /// chase (`perpetual-check` or `perpetual-chase`).
    pub forbidden: Option<&'static str>,
    /// The move captures.
    pub capture: bool,
    /// The move gives check.
    pub check: bool,
    /// The move mates.
    pub checkmate: bool,
    /// The move leaves the opponent without a legal move, not in check (a win in Xiangqi).
    pub stalemate: bool,
}

/// `GET /api/tablebase`.
#[derive(Serialize, Debug, Clone, PartialEq, Eq)]
pub struct TablebaseReply {
    /// `win`, `loss`, `draw`, or `win-by-rule` / `loss-by-rule` when the result exists only
    /// because of the repetition rules (side to move's view).
    pub category: &'static str,
    /// Signed distance to mate in plies (null: draw).
    pub dtm: Option<i32>,
    /// Signed distance to conversion in plies (null: draw, or no DTC file for the table).
    pub dtc: Option<i32>,
    /// The rule the verdict rests on (null for a plain result or a draw).
    pub rule: Option<RuleReply>,
    /// The table's repetition rule set: `check-chase` (perpetual check and chase lose) or
    /// `none` (every cycle is a draw).
    pub rules: &'static str,
    /// The side to move is mated.
    pub checkmate: bool,
    /// The side to move has no legal move without being in check.
    pub stalemate: bool,
    /// Every legal move, best first for the side to move.
    pub moves: Vec<TablebaseMove>,
}

/// Category of a verdict, its side to move's view.
pub fn category(v: Verdict) -> &'static str {
    match (v.wdl, v.rests_on_rule()) {
        (Wdl::Win, false) => "win",
        (Wdl::Win, true) => "win-by-rule",
        (Wdl::Loss, false) => "loss",
        (Wdl::Loss, true) => "loss-by-rule",
        (Wdl::Draw, _) => "draw",
    }
}

fn violation(r: Ruling) -> &'static str {
    match r {
        Ruling::PerpetualCheck => "perpetual-check",
        Ruling::PerpetualChase => "perpetual-chase",
    }
}

fn signed(wdl: Wdl, plies: Option<u32>) -> Option<i32> {
    let d = plies? as i32;
    match wdl {
        Wdl::Win => Some(d),
        Wdl::Loss => Some(-d),
        Wdl::Draw => None,
    }
}

fn probe_error(e: ProbeError) -> ApiError {
    match e {
        ProbeError::Missing {
            material, metric, ..
        } => ApiError::not_found(format!("no {metric} table for {material}")),
        ProbeError::NoIndex(m) => ApiError::not_found(format!("no table for {m}")),
        ProbeError::Illegal(e) => ApiError::bad_request(format!("illegal position: {e}")),
        e => {
            // the full error names server files: it goes to the log, not to the client
            eprintln!("xqdb serve: {e}");
            ApiError::internal("a table could not be read (the server's log has the cause)")
        }
    }
}

/// The DTC of a position (None for a draw or a table without DTC file).
fn dtc_of(tables: &Catalogue, pos: &Position) -> Result<Option<u32>, ApiError> {
    match tables.tb.probe_dtc(pos) {
        Ok(c) => Ok(c),
        Err(ProbeError::Missing { metric: "DTC", .. }) => Ok(None),
        Err(e) => Err(probe_error(e)),
    }
}

/// The repetition rule a verdict rests on: who must deviate, and why (see
/// [`crate::tablebase::Tablebases::rule_behind`]).
fn rule_of(
    tables: &Catalogue,
    pos: &Position,
    verdict: Verdict,
) -> Result<Option<(Color, Ruling)>, ApiError> {
    if !verdict.rests_on_rule() {
        return Ok(None);
    }
    tables.tb.rule_behind(pos).map_err(probe_error)
}

/// The answer of `/api/tablebase`: 404 when the material is not in the tables served.
pub fn tablebase(tables: &Catalogue, pos: &Position) -> Result<TablebaseReply, ApiError> {
    let material = Material::of_position(pos);
    if !tables.covers(material) {
        return Err(ApiError::not_found(format!(
            "no table for {}",
            table_material(material).0
        )));
    }
    let tb = &tables.tb;
    let verdict = tb.probe_verdict(pos).map_err(probe_error)?;
    let (wdl, dtm) = tb.probe_dtm(pos).map_err(probe_error)?;
    let rule = rule_of(tables, pos, verdict)?.map(|(c, r)| RuleReply {
        violator: color_name(c),
        violation: violation(r),
    });
    let rules = tb.rules(pos).map_err(probe_error)?.name();
    let outcomes = tb.best_moves(pos).map_err(probe_error)?;
    let check = pos.in_check();
    let moves = outcomes
        .into_iter()
        .map(|o| {
            let child = pos.after(o.mv);
            let dtc = signed(o.after.wdl, dtc_of(tables, &child)?);
            let child_check = child.in_check();
            let stuck = !child.has_legal_move();
            Ok(TablebaseMove {
                names: MoveNames::of(pos, o.mv),
                category: category(o.after),
                dtm: signed(o.after.wdl, o.dtm.map(|d| d.saturating_sub(1))),
                dtc,
                forbidden: o.forbidden.map(violation),
                capture: pos.piece_at(o.mv.to()).is_some(),
                check: child_check,
                checkmate: child_check && stuck,
                stalemate: !child_check && stuck,
            })
        })
        .collect::<Result<Vec<_>, ApiError>>()?;
    Ok(TablebaseReply {
        category: category(verdict),
        dtm: signed(wdl, dtm),
        dtc: signed(wdl, dtc_of(tables, pos)?),
        rule,
        rules,
        checkmate: check && moves.is_empty(),
        stalemate: !check && moves.is_empty(),
        moves,
    })
}

// ---- /api/book ----

/// One book move; counts from the mover's side.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct BookMoveReply {
    /// Names.
    #[serde(flatten)]
    pub names: MoveNames,
    /// Games that played it.
    pub games: u32,
    /// Won by the mover.
    pub wins: u32,
    /// Drawn.
    pub draws: u32,
    /// Lost by the mover.
    pub losses: u32,
    /// Score of the mover in percent over games with a known result, one decimal (null: none
    /// known).
    pub score: Option<f64>,
    /// Weight the book picks it by.
    pub weight: u32,
}

/// `GET /api/book`.
#[derive(Serialize, Debug, Clone, PartialEq)]
pub struct BookReply {
    /// Games through the position (sum over its moves).
    pub games: u64,
    /// Book moves, highest weight first (empty: the position is not in the book).
    pub moves: Vec<BookMoveReply>,
}

/// The answer of `/api/book`.
pub fn book(book: &Book, pos: &Position) -> BookReply {
    let moves: Vec<BookMoveReply> = book
        .moves(pos)
        .into_iter()
        .map(|b| BookMoveReply {
            names: MoveNames::of(pos, b.mv),
            games: b.games,
            wins: b.wins,
            draws: b.draws,
            losses: b.losses,
            score: b.score_percent().map(|s| (s * 10.0).round() / 10.0),
            weight: b.weight,
        })
        .collect();
    BookReply {
        games: moves.iter().map(|m| m.games as u64).sum(),
        moves,
    }
}

// ---- /api/info ----

/// Book summary.
#[derive(Serialize, Debug)]
pub struct BookInfo {
    /// Positions.
    pub positions: usize,
    /// Moves.
    pub moves: usize,
    /// Games it was built from.
    pub games: u64,
}

/// Analysis limits.
#[derive(Serialize, Debug)]
pub struct AnalysisInfo {
    /// Longest analysis, in milliseconds.
    pub max_movetime: u64,
    /// Analysis time when none is asked for.
    pub default_movetime: u64,
    /// Analyses at once.
    pub max_concurrent: usize,
}

/// `GET /api/info`: what the server offers.
#[derive(Serialize, Debug)]
pub struct InfoReply {
    /// xqdb version.
    pub version: &'static str,
    /// Tables served (table names).
    pub tables: Vec<String>,
    /// Book (null: none).
    pub book: Option<BookInfo>,
    /// Analysis limits.
    pub analysis: AnalysisInfo,
}

/// The answer of `/api/info`.
pub fn info(state: &State) -> InfoReply {
    InfoReply {
        version: env!("CARGO_PKG_VERSION"),
        tables: state
            .tables
            .iter()
            .flat_map(|c| c.materials.iter().map(|m| m.to_string()))
            .collect(),
        book: state.book.as_ref().map(|b| BookInfo {
            positions: b.positions(),
            moves: b.move_count(),
            games: b.games,
        }),
        analysis: AnalysisInfo {
            max_movetime: state.limits.max_movetime.as_millis() as u64,
            default_movetime: state.limits.default_movetime.as_millis() as u64,
            max_concurrent: state.limits.max_analyses,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_fen_is_a_400_with_the_reason() {
        let e = parse_fen(Some("rnbakabnr/9 w"), 128).unwrap_err();
        assert_eq!(e.status, StatusCode::BAD_REQUEST);
        assert!(e.message.contains("ranks"), "{}", e.message);
        let e = parse_fen(None, 128).unwrap_err();
        assert!(e.message.contains("'fen'"), "{}", e.message);
        let long = "9/".repeat(100);
        let e = parse_fen(Some(&long), 128).unwrap_err();
        assert!(e.message.contains("at most 128"), "{}", e.message);
        assert!(parse_fen(Some("startpos"), 128).is_ok());
    }

    #[test]
    fn iccs_is_upper_case_with_a_dash() {
        assert_eq!(iccs("h2e2".parse().unwrap()), "H2-E2");
    }

    #[test]
    fn categories_follow_the_verdict_and_its_rule_round() {
        let plain = Verdict::plain(Wdl::Win);
        assert_eq!(category(plain), "win");
        let by_rule = Verdict {
            wdl: Wdl::Loss,
            order: 2,
            ruling: Some(Ruling::PerpetualCheck),
        };
        assert_eq!(category(by_rule), "loss-by-rule");
        assert_eq!(category(Verdict::plain(Wdl::Draw)), "draw");
        assert_eq!(signed(Wdl::Loss, Some(4)), Some(-4));
        assert_eq!(signed(Wdl::Draw, None), None);
    }
}
