//! A bounded cache of decoded table blocks shared by threads: a block is decoded on its first
//! look-up and dropped, oldest first, once more than the bound are held. The generator reads
//! the tables one capture away through it ([`super::generate`]), and so does `verify`
//! ([`super::verify`]). Its bound can be lowered while it is in use ([`BlockCache::bound`]):
//! the generator keeps the blocks only while it probes them at random.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, RwLock};

pub(crate) struct BlockCache {
    /// Per block: its decoded bytes when cached.
    slots: Vec<RwLock<Option<Box<[u8]>>>>,
    /// Cached blocks, oldest first.
    order: Mutex<VecDeque<usize>>,
    /// Most blocks cached at once.
    max: AtomicUsize,
}

impl BlockCache {
    /// A cache over `blocks` blocks holding at most `max` of them (at least one) at once.
    pub(crate) fn new(blocks: usize, max: usize) -> BlockCache {
        BlockCache {
            slots: (0..blocks).map(|_| RwLock::new(None)).collect(),
            order: Mutex::new(VecDeque::new()),
            max: AtomicUsize::new(max.max(1)),
        }
    }

    /// Hold at most `max` blocks (at least one) from now on: the oldest beyond go now.
    pub(crate) fn bound(&self, max: usize) {
        let max = max.max(1);
        self.max.store(max, Relaxed);
        let mut order = self.order.lock().unwrap_or_else(|e| e.into_inner());
        self.evict(&mut order, max);
    }

    /// Drop the oldest blocks of `order` until at most `max` are left.
    fn evict(&self, order: &mut VecDeque<usize>, max: usize) {
        while order.len() > max {
            let Some(old) = order.pop_front() else {
                break;
            };
            *self.slots[old].write().unwrap_or_else(|e| e.into_inner()) = None;
        }
    }

    /// Byte `off` of block `k`, which `decode` gives when it is not cached; None when there
    /// is no block `k`.
    pub(crate) fn byte<E>(
        &self,
        k: usize,
        off: usize,
        decode: impl FnOnce() -> Result<Vec<u8>, E>,
    ) -> Result<Option<u8>, E> {
        let Some(slot) = self.slots.get(k) else {
            return Ok(None);
        };
        if let Some(b) = &*slot.read().unwrap_or_else(|e| e.into_inner()) {
            return Ok(b.get(off).copied());
        }
        let bytes = decode()?.into_boxed_slice();
        let v = bytes.get(off).copied();
        let mut guard = slot.write().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            *guard = Some(bytes);
            drop(guard);
            let mut order = self.order.lock().unwrap_or_else(|e| e.into_inner());
            order.push_back(k);
            self.evict(&mut order, self.max.load(Relaxed));
        }
        Ok(v)
    }

    /// A copy of block `k` when it is cached (tests: what the cache holds).
    #[cfg(test)]
    pub(crate) fn copy(&self, k: usize) -> Option<Vec<u8>> {
        self.slots
            .get(k)?
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|b| b.to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::BlockCache;
    use std::cell::Cell;

    #[test]
    fn decodes_once_while_cached_and_drops_the_oldest_beyond_the_bound() {
        let cache = BlockCache::new(3, 2);
        let decoded = Cell::new(0);
        let get = |k: usize, off: usize| {
            cache
                .byte(k, off, || -> Result<Vec<u8>, ()> {
                    decoded.set(decoded.get() + 1);
                    Ok(vec![k as u8 * 10, k as u8 * 10 + 1])
                })
                .expect("decoding cannot fail here")
        };
        assert_eq!(get(0, 1), Some(1));
        assert_eq!(get(0, 0), Some(0));
        assert_eq!(decoded.get(), 1, "block 0 decoded once");
        assert_eq!(get(1, 0), Some(10));
        assert_eq!(get(2, 1), Some(21));
        assert_eq!(cache.copy(0), None, "the oldest block left the cache");
        assert_eq!(cache.copy(2), Some(vec![20, 21]));
        assert_eq!(get(3, 0), None, "no block 3");
        assert_eq!(get(1, 5), None, "no byte 5 in block 1");
        assert_eq!(decoded.get(), 3);
    }

    #[test]
    fn a_lower_bound_drops_the_oldest_blocks_at_once() {
        let cache = BlockCache::new(4, 4);
        let get = |k: usize| {
            cache
                .byte(k, 0, || -> Result<Vec<u8>, ()> { Ok(vec![k as u8]) })
                .expect("decoding cannot fail here")
        };
        for k in 0..4 {
            assert_eq!(get(k), Some(k as u8));
        }
        cache.bound(1);
        assert_eq!(cache.copy(2), None, "older blocks left the cache");
        assert_eq!(cache.copy(3), Some(vec![3]), "the newest stays");
        assert_eq!(get(0), Some(0));
        assert_eq!(cache.copy(3), None, "one block at most from now on");
    }

    #[test]
    fn a_decoding_error_is_returned_and_nothing_is_cached() {
        let cache = BlockCache::new(1, 1);
        assert_eq!(cache.byte(0, 0, || Err("bad block")), Err("bad block"));
        assert_eq!(cache.copy(0), None);
    }
}
