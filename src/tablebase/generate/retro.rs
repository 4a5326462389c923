//! Plain retrograde analysis ([`Gen::levels`], steps 2 and 4 of the pipeline in the parent
//! module): decided positions un-moved into their predecessors, level by level, setting
//! wins and counting down losses ([`Gen::apply`]).

use super::*;

impl Gen<'_> {
    /// Step 3's propagation (open predecessors hold a counter in the value byte; decisions
    /// get a code of this round number, and their step in the auxiliary byte): a decided successor (loss or not) of round `order` reaches the
    /// open predecessor `q`, un-moved at step `stamp - 1` of the propagation. True when
    /// this call decided `q` (exactly one call does).
    #[inline]
    pub(super) fn apply_counting(
        &self,
        q: usize,
        side: Color,
        child_loss: bool,
        order: u8,
        stamp: u8,
    ) -> bool {
        // the rule rounds' codes (see [`round_codes`])
        let (val, aux) = (self.codes(side.index()), &self.aux[side.index()]);
        let decided = if child_loss {
            let win = code::make(order, code::WIN);
            val.update(q, |b| (b & code::OPEN != 0).then_some(win))
                .is_ok()
        } else {
            let loss = code::make(order, code::LOSS);
            // (a counter of at least 2 counts down without touching the flag above)
            let mask = self.counter_mask();
            let r = val.update(q, |b| {
                (b & code::OPEN != 0).then_some(if b & mask <= 1 { loss } else { b - 1 })
            });
            // only the thread that takes the last successor sees a count of 1
            matches!(r, Ok(b) if b & mask <= 1)
        };
        if decided {
            aux.set(q, stamp);
            self.assigned.fetch_add(1, Relaxed);
        }
        decided
    }

    /// A decided successor (loss or not, with its code) reaches the predecessor `q`.
    #[inline]
    pub(super) fn apply(
        &self,
        q: u64,
        side: Color,
        child_loss: bool,
        child_code: u8,
        stamp: u8,
        mode: Mode,
    ) {
        let q = q as usize;
        let val = &self.val[side.index()];
        match mode {
            Mode::Compact => self.apply_compact(q, side, child_loss, stamp),
            Mode::Dtm => {
                // the compact layout of step 4 (see [`dtm`]): a level, or a marker, or a
                // loss's counter
                let b = val.get(q);
                if b == dtm::WIN {
                    if child_loss
                        && val
                            .update(q, |b| (b == dtm::WIN).then_some(compact::level_byte(stamp)))
                            .is_ok()
                    {
                        if stamp >= 128 {
                            self.high_bits()[side.index()].set(q);
                        }
                        self.assigned.fetch_add(1, Relaxed);
                    }
                    return;
                }
                if b <= compact::ILLEGAL {
                    // decided (or illegal)
                    return;
                }
                if b == dtm::DRAW {
                    if child_loss {
                        self.fail("step 4 finds a win where step 3 found a draw".into());
                    }
                    return;
                }
                if child_loss {
                    self.fail("step 4 finds a win where step 3 found a loss".into());
                    return;
                }
                // a ruled position may not play its violating moves: successors decided
                // in its own round or later (a ruled position was open after round 0)
                if self.dtm_forbidden(q, side, b, child_code) {
                    return;
                }
                let byte = compact::level_byte(stamp);
                let r =
                    val.update(q, |b| {
                        (b > compact::ILLEGAL && b < dtm::DRAW)
                            .then_some(if self.dtm_last(side, b) { byte } else { b - 1 })
                    });
                if matches!(r, Ok(b) if self.dtm_last(side, b)) {
                    // only the thread that takes the last successor gets here
                    if stamp >= 128 {
                        self.high_bits()[side.index()].set(q);
                    }
                    self.assigned.fetch_add(1, Relaxed);
                }
            }
        }
    }

    pub(super) fn emit_all(
        &self,
        preds: &mut ArrayVec<u64, 512>,
        dedupe: bool,
        side: Color,
        hit: (bool, u8, u8),
        mode: Mode,
    ) {
        let (child_loss, child_code, stamp) = hit;
        // the predecessors lie all over the table: ask for all their cache lines first, so
        // that the misses overlap instead of coming one after the other
        let val = &self.val[side.index()];
        for &q in preds.iter() {
            val.prefetch(q as usize);
        }
        each_distinct(preds, dedupe, |q| {
            self.apply(q, side, child_loss, child_code, stamp, mode)
        });
    }

    /// Un-move the position `i` (side `x` to move, decided with code `c`) into its
    /// predecessors in this table.
    pub(super) fn retro_own(&self, i: u64, x: Color, c: u8, stamp: u8, mode: Mode) {
        let mut preds: ArrayVec<u64, 512> = ArrayVec::new();
        let Some(dedupe) = self.predecessors(i, x, &mut preds) else {
            return;
        };
        let hit = (code::is_loss(c), c, stamp);
        self.emit_all(&mut preds, dedupe, !x, hit, mode);
    }

    /// The indices of the predecessors in this table (the other side to move) of the
    /// position `i` with `x` to move, into `preds`; Some(true) when two of them may be one
    /// position (a nearly symmetric position), None for an undecodable index.
    pub(super) fn predecessors(
        &self,
        i: u64,
        x: Color,
        preds: &mut ArrayVec<u64, 512>,
    ) -> Option<bool> {
        let mut pieces = PieceList::new();
        // the placement and its tail context in one pass
        let ctx = self.index.unrank_tail(i, &mut pieces)?;
        let y = !x;
        let occ_bits = pieces.iter().fold(0u128, |o, &(_, s)| o | s.bit());
        for k in 0..pieces.len() {
            let (p, b) = pieces[k];
            if p.color != y {
                continue;
            }
            let src = unmove_sources(p, b, occ_bits, false);
            if src == 0 {
                continue;
            }
            // a rook, horse or cannon: every un-move only moves the tail
            let single = match (&ctx, p.role) {
                (Some(ctx), Role::Rook | Role::Horse | Role::Cannon) => {
                    self.index.tail_piece(ctx, b)
                }
                _ => None,
            };
            if let Some(tp) = single {
                self.index.rank_tail_piece_each(&tp, src, |q| {
                    let _ = preds.try_push(q);
                });
                continue;
            }
            // moved in place (a copy of the list costs more than the ranking)
            let mut in_place = |a: Square| {
                pieces[k].1 = a;
                let q = self.index.rank_pieces(&pieces).ok();
                pieces[k].1 = b;
                q
            };
            for a in Bitboard::from_bits(src) {
                let q = match (&ctx, p.role) {
                    // a king: its new pair of squares read from the pair tables
                    (Some(ctx), Role::King) => {
                        self.index.rank_king_move(ctx, b, a).or_else(|| in_place(a))
                    }
                    (Some(ctx), _) if tail_move(p, a, b) => self.index.rank_tail_move(ctx, b, a),
                    _ => in_place(a),
                };
                if let Some(q) = q {
                    let _ = preds.try_push(q);
                }
            }
        }
        // each piece facing an empty point across the centre file adds 2 to the asymmetry:
        // with more than two of them the exact count is not needed
        let across = pieces.iter().fold(0u128, |o, &(_, s)| o | s.mirror_bit());
        Some((occ_bits & !across).count_ones() <= 2 && asymmetry_of(&pieces) <= 4)
    }

    /// Level-by-level retrograde analysis from the positions decided at level 0 and the
    /// smaller tables (steps 2 and 4), from level `from` on (the levels below are done).
    /// Decided positions carry their level in the value byte (the compact layout).
    pub(super) fn levels(&self, mode: Mode, from: u8, pb: &Phase<'_>) -> Result<(), TbError> {
        let n = self.size();
        let sub_max = self.sub_max();
        let mut level: u8 = from;
        loop {
            self.assigned.store(0, Relaxed);
            let stamp = level.saturating_add(1);
            (0..self.chunks()).into_par_iter().for_each(|c| {
                let (start, end) = (c * CHUNK, ((c + 1) * CHUNK).min(n));
                for x in Color::ALL {
                    let c = compact::level_code(level);
                    if let Mode::Dtm = mode {
                        // a position decided by the rule rounds has its code in its slot
                        self.scan_level_compact(x, start, end, level, |i| {
                            let c = self.dtm_code(x, i, c);
                            self.retro_own(i as u64, x, c, stamp, mode)
                        });
                    } else {
                        self.scan_level_compact(x, start, end, level, |i| {
                            self.retro_own(i as u64, x, c, stamp, mode)
                        });
                    }
                }
            });
            self.walk_subs(level, stamp, mode);
            if self.overflow.load(Relaxed) {
                return Err(TbError::DtmOverflow(self.material));
            }
            pb.status(&format!("level {level}"));
            pb.inc(1);
            if level >= sub_max && self.assigned.load(Relaxed) == 0 {
                break;
            }
            if level >= MAX_DTM - 1 {
                return Err(TbError::DtmOverflow(self.material));
            }
            self.check_fault()?;
            let next = level + 1;
            self.safe_point(match mode {
                Mode::Dtm => Step::Dtm { next },
                Mode::Compact => Step::Levels { next },
            })?;
            level += 1;
        }
        self.check_fault()
    }
}

/// Call `f` once for each distinct index of `preds`: when `dedupe` (a nearly symmetric
/// position may list one predecessor twice) they are sorted first and repeats skipped.
#[inline]
pub(super) fn each_distinct(preds: &mut ArrayVec<u64, 512>, dedupe: bool, mut f: impl FnMut(u64)) {
    if dedupe {
        preds.sort_unstable();
    }
    let mut last = u64::MAX;
    for &q in preds.iter() {
        if dedupe && q == last {
            continue;
        }
        last = q;
        f(q);
    }
}
