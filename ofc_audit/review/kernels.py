"""The compiled inner loops of the review (numba, nopython, cached): row values, finished
boards, the rollout policy, whole rollouts and the exact Fantasyland search.

Imported only when a review runs (``audit``, ``session`` and ``score`` never load numba).
Every table comes from :mod:`ofc_audit.review.tables` (the game's own rules as arrays); the
``tables`` argument below is the tuple ``(keys, values, flushes, rank_key, suit_bit,
royalty, entry, stay)``.

A board is 13 ints in one array row: top at 0..2, middle at 3..7, bottom at 8..12, with the
cards placed so far in each row counted in a ``(players, 3)`` array. The rollout policy is
described in ``docs/REVIEW-POLICY.md``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .tables import HASH_BITS, HASH_MULTIPLIER, HASH_SHIFT


def compiled(**options):
    """numba's ``njit``, its machine code cached on disk (the first review in a fresh
    installation compiles for about 40 s; later runs and worker processes load the cache).

    numba caches in ``NUMBA_CACHE_DIR`` when it is set, else beside this file, else in the
    user's cache directory; when none of them is writable (a read-only installation run by
    a user without a writable home), numba refuses ``cache=True`` when the kernel is
    defined: the kernels are then compiled in each process instead of failing. A cache
    that cannot be written when a kernel is compiled (its disk full) is let go the same
    way: numba raised the ``OSError`` from the kernel's first call, and the review ended in
    a traceback."""

    def wrap(function):
        try:
            return _saved_if_possible(njit(cache=True, **options)(function))
        except RuntimeError:  # "cannot cache function ...: no locator available"
            return njit(**options)(function)

    return wrap


def _saved_if_possible(dispatcher):
    """``dispatcher`` whose cache is written when it can be: numba adds the compiled code
    to the dispatcher before it saves it, so a save that fails loses only the saving (the
    next process compiles again)."""
    cache = getattr(dispatcher, "_cache", None)
    save = getattr(cache, "save_overload", None)
    if cache is None or save is None:
        return dispatcher

    def save_overload(signature, result):
        try:
            save(signature, result)
        except OSError:
            pass  # compiled, not saved: the next run compiles again

    cache.save_overload = save_overload
    return dispatcher


MASK = (1 << HASH_BITS) - 1
OFFSET = (0, 3, 8)
SIZE = (3, 5, 5)
BIG = 1 << 40
JOKER = 52

TOP_PAIR_DRAW = 0.03


# Constants as functions: numba indexes a global tuple with a run-time index slowly.
@compiled(inline="always")
def _offset(r):
    return 0 if r == 0 else (3 if r == 1 else 8)


@compiled(inline="always")
def _size(r):
    return 3 if r == 0 else 5


@compiled(inline="always")
def _flush_complete(held):
    """The chance that 2, 3 or 4 suited cards complete a flush (before the slots left)."""
    return 0.10 if held == 2 else (0.22 if held == 3 else 0.42)


@compiled(inline="always")
def _straight_complete(held):
    return 0.08 if held == 2 else (0.16 if held == 3 else 0.32)


@compiled(inline="always")
def _strength(r):
    """Points per category a row's strength is worth to the policy (rows won)."""
    return 0.30 if r == 0 else (0.22 if r == 1 else 0.18)


@compiled(inline="always")
def lookup(keys, values, flushes, key, flush):
    slot = ((key * HASH_MULTIPLIER) >> HASH_SHIFT) & MASK
    while keys[slot] != key:
        slot = (slot + 1) & MASK
    if flush:
        return flushes[slot]
    return values[slot]


@compiled()
def row_value(tables, cards, start, n, size, excluded, limit):
    """The value of ``cards[start:start+n]`` (a row of ``size`` slots); a joker stands for the
    best card not in the row nor in ``excluded`` (a 52-bit mask) whose value is at most
    ``limit``. -1 when no assignment stays at or below ``limit``."""
    keys, values, flushes = tables[0], tables[1], tables[2]
    rank_key, suit_bit = tables[3], tables[4]
    key = 0
    suits = 15
    jokers = 0
    inrow = 0
    for i in range(n):
        c = cards[start + i]
        if c >= JOKER:
            jokers += 1
        else:
            key += rank_key[c]
            suits &= suit_bit[c]
            inrow |= 1 << c
    five = n == 5 and size == 5
    if jokers == 0:
        v = lookup(keys, values, flushes, key, five and suits != 0)
        return v if v <= limit else -1
    taken = inrow | excluded
    best = -1
    if jokers == 1:
        for s in range(52):
            if (taken >> s) & 1:
                continue
            flush = five and (suits & suit_bit[s]) != 0
            v = lookup(keys, values, flushes, key + rank_key[s], flush)
            if best < v <= limit:
                best = v
        return best
    for s in range(52):
        if (taken >> s) & 1:
            continue
        k1 = key + rank_key[s]
        s1 = suits & suit_bit[s]
        for u in range(s + 1, 52):
            if (taken >> u) & 1:
                continue
            v = lookup(keys, values, flushes, k1 + rank_key[u], five and (s1 & suit_bit[u]) != 0)
            if best < v <= limit:
                best = v
    return best


@compiled()
def board_mask(board, count):
    mask = 0
    for r in range(3):
        for i in range(count[r]):
            c = board[_offset(r) + i]
            if c < JOKER:
                mask |= 1 << c
    return mask


@compiled()
def _joker_row_values(tables, board, r, excluded, out):
    """``out[s]``: the value of row ``r`` (one joker) with the joker standing for card ``s``,
    -1 where ``s`` is not allowed (in the row, or in ``excluded``)."""
    keys, values, flushes = tables[0], tables[1], tables[2]
    rank_key, suit_bit = tables[3], tables[4]
    off = _offset(r)
    size = _size(r)
    key = 0
    suits = 15
    inrow = 0
    for i in range(size):
        c = board[off + i]
        if c < JOKER:
            key += rank_key[c]
            suits &= suit_bit[c]
            inrow |= 1 << c
    taken = inrow | excluded
    for s in range(52):
        if (taken >> s) & 1:
            out[s] = -1
        else:
            flush = size == 5 and (suits & suit_bit[s]) != 0
            out[s] = lookup(keys, values, flushes, key + rank_key[s], flush)


@compiled()
def _split_jokers(tables, board, ra, rb, excluded):
    """(fouled, top, middle, bottom) of a board with one joker in row ``ra`` and the other
    in row ``rb``: R-JOKER-2 over both at once (legal first, then the strongest bottom,
    middle, top), the two jokers never standing for the same card (R-JOKER-1)."""
    va = np.empty(52, dtype=np.int64)
    vb = np.empty(52, dtype=np.int64)
    _joker_row_values(tables, board, ra, excluded, va)
    _joker_row_values(tables, board, rb, excluded, vb)
    rc = 3 - ra - rb
    vc = row_value(tables, board, _offset(rc), _size(rc), _size(rc), 0, BIG)
    v = np.empty(3, dtype=np.int64)
    v[rc] = vc
    best_legal = False
    b0 = -1
    b1 = -1
    b2 = -1
    for s in range(52):
        if va[s] < 0:
            continue
        v[ra] = va[s]
        for t in range(52):
            if t == s or vb[t] < 0:
                continue
            v[rb] = vb[t]
            legal = v[0] <= v[1] <= v[2]
            if legal != best_legal:
                if not legal:
                    continue
            elif (v[2], v[1], v[0]) <= (b2, b1, b0):
                continue
            best_legal = legal
            b0 = v[0]
            b1 = v[1]
            b2 = v[2]
    return not best_legal, b0, b1, b2


@compiled()
def finished(tables, board, count, joker_board, known):
    """(fouled, top, middle, bottom values) of a board. Jokers (R-JOKER-2): the strongest
    bottom, then the strongest middle not above it, then the strongest top not above that;
    two jokers in different rows are assigned together and never stand for the same card
    (R-JOKER-1). ``joker_board`` excludes the player's own board cards (``joker_excludes``
    board) and the cards of the 52-bit mask ``known`` (``known``: 0 under board)."""
    if count[0] != 3 or count[1] != 5 or count[2] != 5:
        return True, 0, 0, 0
    excluded = (board_mask(board, count) | known) if joker_board else 0
    ra = -1
    rb = -1
    for r in range(3):
        for i in range(_size(r)):
            if board[_offset(r) + i] >= JOKER:
                if ra < 0:
                    ra = r
                elif r != ra:
                    rb = r
    if rb >= 0:
        return _split_jokers(tables, board, ra, rb, excluded)
    vb = row_value(tables, board, 8, 5, 5, excluded, BIG)
    vm = row_value(tables, board, 3, 5, 5, excluded, vb)
    if vm < 0:
        return True, 0, 0, vb
    vt = row_value(tables, board, 0, 3, 3, excluded, vm)
    if vt < 0:
        return True, 0, vm, vb
    return False, vt, vm, vb


@compiled(inline="always")
def royalties_of(tables, fouled, vt, vm, vb):
    if fouled:
        return 0
    royalty = tables[5]
    return royalty[0, vt >> 16] + royalty[1, vm >> 16] + royalty[2, vb >> 16]


@compiled(inline="always")
def finish_into(final, p, tables, board, count, joker_board, known):
    """Player ``p``'s finished board as a row of ``final``: fouled (0/1), the three rows'
    values, the royalties."""
    fouled, vt, vm, vb = finished(tables, board, count, joker_board, known)
    final[p, 0] = 1 if fouled else 0
    final[p, 1] = vt
    final[p, 2] = vm
    final[p, 3] = vb
    final[p, 4] = royalties_of(tables, fouled, vt, vm, vb)


@compiled(inline="always")
def next_fantasyland(tables, fouled, vt, vm, vb, in_fantasyland):
    """R-FL-1 entry or R-FL-3 stay: 1 when the board earns the next hand in Fantasyland."""
    if fouled:
        return 0
    entry, stay = tables[6], tables[7]
    if in_fantasyland:
        if stay[0, vt >> 16] or stay[1, vm >> 16] or stay[2, vb >> 16]:
            return 1
        return 0
    return 1 if entry[vt >> 16] > 0 else 0


@compiled(inline="always")
def pair_points(fa, ta, ma, ba, ra, fb, tb, mb, bb, rb, scoop):
    """R-SCORE-1..4: points of ``a`` against ``b`` (royalties ``ra``, ``rb``; 0 when fouled)."""
    if fa and fb:
        return 0
    if fa:
        rows = -3
    elif fb:
        rows = 3
    else:
        rows = (ta > tb) - (ta < tb) + (ma > mb) - (ma < mb) + (ba > bb) - (ba < bb)
    bonus = scoop if rows == 3 else (-scoop if rows == -3 else 0)
    return rows + bonus + ra - rb


# -- the rollout policy -------------------------------------------------------------------


@compiled(inline="always")
def _straight_window(rankmask):
    """Whether the distinct ranks (bit r for rank index 0..12) fit one straight's window."""
    if rankmask == 0:
        return True
    wheel = (rankmask & ~(1 << 12)) | (1 if rankmask & (1 << 12) else 0)
    for m in (rankmask << 1, wheel):
        low = 0
        while not (m >> low) & 1:
            low += 1
        if (m >> low) < 32:
            return True
    return False


@compiled(inline="always")
def row_gain(tables, r, v, n, suits, rankmask, naturals, fl_value, looks):
    """What a row is worth on its own: royalties made, the Fantasyland entry a top row
    holds, completing draws and strength (docs/REVIEW-POLICY.md)."""
    royalty, entry = tables[5], tables[6]
    coarse = v >> 16
    category = v >> 20
    room = _size(r) - n
    gain = float(royalty[r, coarse])
    if r == 0:
        if entry[coarse] > 0:
            gain += fl_value
        elif room > 0 and category == 0 and (coarse & 15) >= 12:
            gain += TOP_PAIR_DRAW * room * looks * (royalty[0, (1 << 4) | (coarse & 15)] + fl_value)
    elif room > 0 and naturals == n and n >= 2:
        held = n if n < 5 else 4
        if suits != 0:
            p = _flush_complete(held) * min(1.0, room * looks / (5 - held))
            gain += p * (royalty[r, (5 << 4) | 14] + 1.0)
        if category == 0 and _straight_window(rankmask):
            p = _straight_complete(held) * min(1.0, room * looks / (5 - held))
            gain += p * (royalty[r, (4 << 4) | 10] + 0.8)
    # Strength (rows won): the category, and its rank in proportion to how full the row is
    # (a lone high card says little about how the row ends).
    gain += _strength(r) * (category + ((coarse & 15) / 14.0) * n / _size(r))
    return gain


@compiled()
def catch_table(looks):
    """``table[gap, room]``: the chance that a lower row with ``room`` slots left catches an
    upper row ``gap`` categories above it (gap 0: same category, lower ranks)."""
    table = np.zeros((4, 6))
    for room in range(1, 6):
        k = room * looks
        table[0, room] = 1.0 - 0.55**k
        table[1, room] = 1.0 - 0.8**k
        table[2, room] = 0.5 * (1.0 - 0.85**k)
        table[3, room] = min(1.0, 0.03 * k)
    return table


@compiled(inline="always")
def pair_risk(upper, lower, room_lower, catch):
    """Chance that ``lower`` ends weaker than ``upper`` (as it stands now)."""
    if upper <= lower:
        return 0.0
    if room_lower == 0:
        return 1.0
    gap = (upper >> 20) - (lower >> 20)
    if gap < 0:
        gap = 0
    elif gap > 3:
        gap = 3
    chance = catch[gap, room_lower]
    if gap >= 1:
        # Catching a made pair or trips is harder the higher its rank (2 .. 14).
        rank = (upper >> 16) & 15
        chance *= 0.45 + 0.55 * (14 - rank) / 12.0
    return 1.0 - chance


@compiled()
def placement_codes(nd, place):
    """Every way to send ``nd`` cards to top / middle / bottom / discard with exactly
    ``place`` kept: rows of (top mask, middle mask, bottom mask) over the cards, the first
    card's row varying slowest (the order of :func:`ofc_audit.review.position.candidates`)."""
    out = np.zeros((1 << (2 * nd), 3), dtype=np.int64)
    k = 0
    for code in range(1 << (2 * nd)):
        masks = np.zeros(4, dtype=np.int64)
        for i in range(nd):
            d = (code >> (2 * (nd - 1 - i))) & 3
            masks[d] |= 1 << i
        if _popcount(masks[3]) != nd - place:
            continue
        out[k, 0] = masks[0]
        out[k, 1] = masks[1]
        out[k, 2] = masks[2]
        k += 1
    return out[:k]


@compiled()
def choose(tables, boards, counts, p, dealt, nd, codes, fl_value, foul_cost, looks, excluded,
           catch, values, gains, row, subset):
    """Place the ``nd`` dealt cards on player ``p``'s board by the policy, trying every
    placement in ``codes`` (see :func:`placement_codes`), and apply the best one.

    A row's value and worth are computed once per subset of the dealt cards it could take
    (``values``/``gains[row, subset]``); a placement then costs three look-ups and the
    foul risk between neighbouring rows."""
    rank_key, suit_bit = tables[3], tables[4]
    nmask = 1 << nd
    board = boards[p]
    count = counts[p]
    # Per subset of the dealt cards: rank key, common suits, rank bits, jokers, size.
    subset[0, 0] = 0
    subset[0, 1] = 15
    subset[0, 2] = 0
    subset[0, 3] = 0
    subset[0, 4] = 0
    for m in range(1, nmask):
        low = 0
        while not (m >> low) & 1:
            low += 1
        prev = m & (m - 1)
        c = dealt[low]
        if c >= JOKER:
            subset[m, 0] = subset[prev, 0]
            subset[m, 1] = subset[prev, 1]
            subset[m, 2] = subset[prev, 2]
            subset[m, 3] = subset[prev, 3] + 1
        else:
            subset[m, 0] = subset[prev, 0] + rank_key[c]
            subset[m, 1] = subset[prev, 1] & suit_bit[c]
            subset[m, 2] = subset[prev, 2] | (1 << (c // 4))
            subset[m, 3] = subset[prev, 3]
        subset[m, 4] = subset[prev, 4] + 1
    for r in range(3):
        base_key = 0
        base_suits = 15
        base_ranks = 0
        base_jokers = 0
        off = _offset(r)
        for i in range(count[r]):
            c = board[off + i]
            if c >= JOKER:
                base_jokers += 1
            else:
                base_key += rank_key[c]
                base_suits &= suit_bit[c]
                base_ranks |= 1 << (c // 4)
        size = _size(r)
        room = size - count[r]
        for m in range(nmask):
            k = subset[m, 4]
            if k > room:
                values[r, m] = -1
                continue
            n = count[r] + k
            jokers = base_jokers + subset[m, 3]
            suits = base_suits & subset[m, 1]
            if jokers:
                for i in range(count[r]):
                    row[i] = board[off + i]
                t = count[r]
                for i in range(nd):
                    if (m >> i) & 1:
                        row[t] = dealt[i]
                        t += 1
                v = row_value(tables, row, 0, n, size, excluded, BIG)
            else:
                v = lookup(tables[0], tables[1], tables[2], base_key + subset[m, 0],
                           n == 5 and r > 0 and suits != 0)
            values[r, m] = v
            gains[r, m] = row_gain(tables, r, v, n, suits, base_ranks | subset[m, 2],
                                   n - jokers, fl_value, looks)
    best = -1e300
    best_k = 0
    for k in range(codes.shape[0]):
        m0 = codes[k, 0]
        m1 = codes[k, 1]
        m2 = codes[k, 2]
        vt = values[0, m0]
        vm = values[1, m1]
        vb = values[2, m2]
        if vt < 0 or vm < 0 or vb < 0:
            continue
        nm = count[1] + subset[m1, 4]
        nb = count[2] + subset[m2, 4]
        risk_mb = pair_risk(vm, vb, 5 - nb, catch)
        if count[0] + subset[m0, 4] == 3 and nm == 5 and nb == 5:
            risk_tm = 1.0 if vt > vm else 0.0
        else:
            risk_tm = pair_risk(vt, vm, 5 - nm, catch)
        risk = 1.0 - (1.0 - risk_mb) * (1.0 - risk_tm)
        gain = gains[0, m0] + gains[1, m1] + gains[2, m2]
        score = (1.0 - risk) * gain - risk * foul_cost
        if score > best:
            best = score
            best_k = k
    for r in range(3):
        m = codes[best_k, r]
        for i in range(nd):
            if (m >> i) & 1:
                board[_offset(r) + count[r]] = dealt[i]
                count[r] += 1


@compiled(inline="always")
def _popcount(m):
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


# -- Fantasyland: the policy's quick setting and the exact search -------------------------


@compiled()
def _best_five(tables, cards, used, limit, out):
    """The strongest 5 of the unused ``cards`` valued at most ``limit``; marks them used."""
    n = cards.shape[0]
    row = np.empty(5, dtype=np.int64)
    best = -1
    pick = np.full(5, -1, dtype=np.int64)
    for a in range(n):
        if used[a]:
            continue
        for b in range(a + 1, n):
            if used[b]:
                continue
            for c in range(b + 1, n):
                if used[c]:
                    continue
                for d in range(c + 1, n):
                    if used[d]:
                        continue
                    for e in range(d + 1, n):
                        if used[e]:
                            continue
                        row[0] = cards[a]
                        row[1] = cards[b]
                        row[2] = cards[c]
                        row[3] = cards[d]
                        row[4] = cards[e]
                        v = row_value(tables, row, 0, 5, 5, 0, limit)
                        if v > best:
                            best = v
                            pick[0] = a
                            pick[1] = b
                            pick[2] = c
                            pick[3] = d
                            pick[4] = e
    for i in range(5):
        if pick[i] >= 0:
            used[pick[i]] = True
            out[i] = cards[pick[i]]
    return best


@compiled()
def fantasyland_quick(tables, cards, board, count):
    """The policy's Fantasyland setting: the strongest bottom, the strongest middle of the
    rest, the strongest top of the rest not above the middle (greedy, docs/REVIEW-POLICY.md)."""
    n = cards.shape[0]
    used = np.zeros(n, dtype=np.bool_)
    out = np.empty(5, dtype=np.int64)
    _best_five(tables, cards, used, BIG, out)
    for i in range(5):
        board[8 + i] = out[i]
    vm = _best_five(tables, cards, used, BIG, out)
    for i in range(5):
        board[3 + i] = out[i]
    row = np.empty(3, dtype=np.int64)
    best = -1
    pick = np.full(3, -1, dtype=np.int64)
    for a in range(n):
        if used[a]:
            continue
        for b in range(a + 1, n):
            if used[b]:
                continue
            for c in range(b + 1, n):
                if used[c]:
                    continue
                row[0] = cards[a]
                row[1] = cards[b]
                row[2] = cards[c]
                v = row_value(tables, row, 0, 3, 3, 0, vm)
                if v > best or pick[0] < 0:
                    best = v
                    pick[0] = a
                    pick[1] = b
                    pick[2] = c
    for i in range(3):
        board[i] = cards[pick[i]]
    count[0] = 3
    count[1] = 5
    count[2] = 5


# -- rollouts ------------------------------------------------------------------------------


@compiled()
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@compiled()
def make_deals(seed, first, count, pool, length):
    """Deal ``length`` cards of ``pool`` for rollouts ``first .. first+count-1``: rollout i's
    deal depends on (seed, i) only (a partial Fisher-Yates shuffle driven by splitmix64)."""
    m = pool.shape[0]
    deals = np.empty((count, length), dtype=np.int64)
    work = np.empty(m, dtype=np.int64)
    golden = np.uint64(0x9E3779B97F4A7C15)
    base = _mix(np.uint64(seed) * golden + np.uint64(1))
    for j in range(count):
        for i in range(m):
            work[i] = pool[i]
        state = _mix(base ^ (np.uint64(first + j) * golden))
        for i in range(length):
            state = state + golden
            x = _mix(state)
            k = i + np.int64((x >> np.uint64(11)) % np.uint64(m - i))
            t = work[i]
            work[i] = work[k]
            work[k] = t
            deals[j, i] = work[i]
    return deals


@compiled()
def rollouts(tables, boards0, counts0, next_street0, fantasyland, fl_cards, in_fl_before, hero,
             cand_cards, cand_rows, which, deals, streets, scoop, fl_value, joker_board,
             joker_known, known, foul_cost, looks, out_value, out_foul, out_fl):
    """Play out every deal for each candidate in ``which`` (common random numbers: the same
    deals for all), filling ``out_*[k, j]`` for candidate ``which[k]`` and deal j.

    ``cand_cards[c, i]`` / ``cand_rows[c, i]`` are the hero's cards and their rows (3:
    discarded, -1: unused slot); ``streets[t] = (dealt, placed)``; ``next_street0[p]`` the
    first street (1-based) player p has still to play (0 for a Fantasyland player).
    ``joker_board``: a joker takes no card of its own board; ``joker_known`` (then
    ``joker_board`` too): nor a card in the mask ``known`` (the hero's own discards) or on
    any board at the showdown (the cards the history shows).

    The policy places a player's cards by its own board alone, and a deal's cards go to the
    players in a fixed order whatever the hero does, so the other players' hands are played
    once per deal and only the hero's is played again for each candidate."""
    players = boards0.shape[0]
    boards = np.empty_like(boards0)
    counts = np.empty_like(counts0)
    nxt = np.empty_like(next_street0)
    final = np.empty((players, 5), dtype=np.int64)
    nstreets = streets.shape[0]
    hand_cards = np.empty(32, dtype=np.int64)
    catch = catch_table(looks)
    values = np.empty((3, 32), dtype=np.int64)
    gains = np.empty((3, 32))
    row = np.empty(5, dtype=np.int64)
    subset = np.empty((32, 5), dtype=np.int64)
    hero_at = np.empty(nstreets, dtype=np.int64)  # where the hero's cards of a street start
    hero_street = np.empty(nstreets, dtype=np.int64)
    # The placements of each street, made once.
    most = 0
    for t in range(nstreets):
        most = max(most, placement_codes(streets[t, 0], streets[t, 1]).shape[0])
    codes = np.zeros((nstreets, most, 3), dtype=np.int64)
    ncodes = np.zeros(nstreets, dtype=np.int64)
    for t in range(nstreets):
        made = placement_codes(streets[t, 0], streets[t, 1])
        codes[t, :made.shape[0]] = made
        ncodes[t] = made.shape[0]
    h = hero
    for j in range(deals.shape[0]):
        deal = deals[j]
        boards[:, :] = boards0
        counts[:, :] = counts0
        nxt[:] = next_street0
        nxt[h] += 1
        ptr = 0
        for p in range(players):
            if fantasyland[p]:
                cards = deal[ptr:ptr + fl_cards[p]]
                ptr += fl_cards[p]
                fantasyland_quick(tables, cards, boards[p], counts[p])
        heros = 0
        for t in range(1, nstreets + 1):
            nd = streets[t - 1, 0]
            street_codes = codes[t - 1, :ncodes[t - 1]]
            for p in range(players):
                if fantasyland[p] or nxt[p] != t:
                    continue
                if p == h:
                    hero_at[heros] = ptr
                    hero_street[heros] = t
                    heros += 1
                    ptr += nd
                    nxt[p] = t + 1
                    continue
                for i in range(nd):
                    hand_cards[i] = deal[ptr + i]
                ptr += nd
                excluded = (board_mask(boards[p], counts[p]) | known) if joker_board else 0
                choose(tables, boards, counts, p, hand_cards[:nd], nd, street_codes,
                       fl_value, foul_cost, looks, excluded, catch, values, gains, row,
                       subset)
                nxt[p] = t + 1
        others = 0
        if joker_known:
            others = known
            for p in range(players):
                if p != h:
                    others |= board_mask(boards[p], counts[p])
        else:
            for p in range(players):
                if p != h:
                    finish_into(final, p, tables, boards[p], counts[p], joker_board, 0)
        for k in range(which.shape[0]):
            cand = which[k]
            boards[h, :] = boards0[h]
            counts[h, :] = counts0[h]
            for i in range(cand_cards.shape[1]):
                r = cand_rows[cand, i]
                if 0 <= r < 3:
                    boards[h, _offset(r) + counts[h, r]] = cand_cards[cand, i]
                    counts[h, r] += 1
            for s in range(heros):
                t = hero_street[s]
                nd = streets[t - 1, 0]
                for i in range(nd):
                    hand_cards[i] = deal[hero_at[s] + i]
                excluded = (board_mask(boards[h], counts[h]) | known) if joker_board else 0
                choose(tables, boards, counts, h, hand_cards[:nd], nd,
                       codes[t - 1, :ncodes[t - 1]], fl_value, foul_cost, looks, excluded,
                       catch, values, gains, row, subset)
            if joker_known:
                shown = others | board_mask(boards[h], counts[h])
                for p in range(players):
                    finish_into(final, p, tables, boards[p], counts[p], True, shown)
            else:
                finish_into(final, h, tables, boards[h], counts[h], joker_board, 0)
            points = 0
            for p in range(players):
                if p == h:
                    continue
                points += pair_points(final[h, 0], final[h, 1], final[h, 2], final[h, 3],
                                      final[h, 4], final[p, 0], final[p, 1], final[p, 2],
                                      final[p, 3], final[p, 4], scoop)
            fl = next_fantasyland(tables, final[h, 0] == 1, final[h, 1], final[h, 2],
                                  final[h, 3], in_fl_before[h])
            out_value[k, j] = points + fl_value * fl
            out_foul[k, j] = final[h, 0]
            out_fl[k, j] = fl


@compiled()
def _subset_row(cards, mask, out):
    k = 0
    i = 0
    while mask:
        if mask & 1:
            out[k] = cards[i]
            k += 1
        mask >>= 1
        i += 1
    return k


@compiled()
def _subsets(tables, cards, size, fl_value, in_fantasyland):
    """Every ``size``-card subset of ``cards``: (masks, strongest values, royalties as the
    row of that size, the row's own Fantasyland bonus); the row is the bottom for 5, the
    top for 3."""
    n = cards.shape[0]
    total = 1
    for i in range(size):
        total = total * (n - i) // (i + 1)
    masks = np.empty(total, dtype=np.int64)
    vals = np.empty(total, dtype=np.int64)
    row = np.empty(size, dtype=np.int64)
    idx = np.arange(size)
    k = 0
    while True:
        m = 0
        for i in range(size):
            row[i] = cards[idx[i]]
            m |= 1 << idx[i]
        masks[k] = m
        vals[k] = row_value(tables, row, 0, size, size, 0, BIG)
        k += 1
        i = size - 1
        while i >= 0 and idx[i] == n - size + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, size):
            idx[j] = idx[j - 1] + 1
    return masks, vals


@compiled()
def _top_bound(tables, cards, masks3, vals3, score3, ranked, bmask, vb, joker_mask, fl_value,
               in_fantasyland, staying, three):
    """The most a top row can add beside this bottom: tops that share no card with it and
    are not above it (a joker's top valued under that limit). ``score3`` is what each top
    adds at its strongest (its royalty, plus ``fl_value`` when ``staying``), sorted by
    ``ranked``, so the scan stops as soon as no later top can do better."""
    royalty, entry, stay = tables[5], tables[6], tables[7]
    bound = 0.0
    for ti in range(ranked.shape[0]):
        t = ranked[ti]
        upper = score3[t] + (fl_value if staying else 0.0)
        if upper <= bound:
            break
        if masks3[t] & bmask:
            continue
        if masks3[t] & joker_mask and vals3[t] > vb:
            _subset_row(cards, masks3[t], three)
            v = row_value(tables, three, 0, 3, 3, 0, vb)
            if v < 0:
                continue
            coarse = v >> 16
            if staying:
                value = royalty[0, coarse] + fl_value
            else:
                fl = stay[0, coarse] if in_fantasyland else entry[coarse] > 0
                value = royalty[0, coarse] + (fl_value if fl else 0.0)
            bound = max(bound, value)
        elif vals3[t] <= vb:
            return max(bound, upper)
    return bound


@compiled()
def fantasyland_search(tables, cards, fl_value, in_fantasyland, joker_board):
    """The best setting of ``cards`` (13..17, jokers included) by royalties + ``fl_value`` if
    it earns Fantasyland next, legal settings only: (value, bottom mask, middle mask, top
    mask) over card positions; value -1 when no legal setting exists.

    Branch and bound, pruning by row order. Bottoms and middles are visited from the
    strongest down; a row's royalty never rises as its value falls (the tables are monotone
    in category), so once the bound (this bottom's royalty, the best middle royalty at or
    below it, the best top still possible) cannot beat the best found, every later one is
    cut. Tops are kept sorted by what they add (royalty, and the Fantasyland they earn):
    the first one that fits is the best. Jokers take the best card allowed under each row's
    limit (R-JOKER-2), so a set holding one is valued again under that limit."""
    royalty = tables[5]
    entry = tables[6]
    stay = tables[7]
    n = cards.shape[0]
    joker_mask = 0
    for i in range(n):
        if cards[i] >= JOKER:
            joker_mask |= 1 << i
    masks5, vals5 = _subsets(tables, cards, 5, fl_value, in_fantasyland)
    order = np.argsort(-vals5, kind="mergesort")
    masks5 = masks5[order]
    vals5 = vals5[order]
    total5 = masks5.shape[0]
    masks3, vals3 = _subsets(tables, cards, 3, fl_value, in_fantasyland)
    total3 = masks3.shape[0]
    roy3 = np.empty(total3)
    score3 = np.empty(total3)
    for i in range(total3):
        coarse = vals3[i] >> 16
        roy3[i] = royalty[0, coarse]
        fl = stay[0, coarse] if in_fantasyland else entry[coarse] > 0
        score3[i] = roy3[i] + (fl_value if fl else 0.0)
    by_score = np.argsort(-score3, kind="mergesort")
    by_roy = np.argsort(-roy3, kind="mergesort")
    best = -1.0
    best_b = 0
    best_m = 0
    best_t = 0
    row = np.empty(5, dtype=np.int64)
    three = np.empty(3, dtype=np.int64)
    board = np.empty(13, dtype=np.int64)
    count = np.array([3, 5, 5], dtype=np.int64)
    for bi in range(total5):
        bmask = masks5[bi]
        vb = vals5[bi]
        rb = royalty[2, vb >> 16]
        fl_bottom = in_fantasyland and stay[2, vb >> 16] != 0
        # The best top any setting with this bottom can have (ignoring the middle).
        top_bound = _top_bound(tables, cards, masks3, vals3, score3, by_score, bmask, vb,
                               joker_mask, fl_value, in_fantasyland, False, three)
        # A stay by the bottom, or by a middle (which is never above this bottom).
        if fl_bottom or (in_fantasyland and stay[1, vb >> 16] != 0):
            top_bound = max(top_bound, _top_bound(
                tables, cards, masks3, vals3, roy3, by_roy, bmask, vb, joker_mask, fl_value,
                in_fantasyland, True, three))
        if rb + royalty[1, vb >> 16] + top_bound <= best:
            # Weaker bottoms may free a better top: stop only when the best top of all
            # cards cannot help either.
            any_top = score3[by_score[0]]
            if fl_bottom or (in_fantasyland and stay[1, vb >> 16] != 0):
                any_top = max(any_top, roy3[by_roy[0]] + fl_value)
            if rb + royalty[1, vb >> 16] + any_top <= best and (bmask & joker_mask) == 0:
                break
            continue
        for mi in range(total5):
            mmask = masks5[mi]
            if mmask & bmask:
                continue
            vm_max = vals5[mi]
            if vm_max > vb and (mmask & joker_mask) == 0:
                continue
            cap = vm_max if vm_max < vb else vb
            if rb + royalty[1, cap >> 16] + top_bound <= best:
                if vm_max <= vb:
                    break
                continue
            if mmask & joker_mask and vm_max > vb:
                # The joker's best card is too strong here: the best one under the bottom.
                _subset_row(cards, mmask, row)
                vm = row_value(tables, row, 0, 5, 5, 0, vb)
                if vm < 0:
                    continue
            else:
                vm = vm_max
            rm = royalty[1, vm >> 16]
            fl_rows = in_fantasyland and (stay[2, vb >> 16] != 0 or stay[1, vm >> 16] != 0)
            used = bmask | mmask
            ranked = by_roy if fl_rows else by_score
            for ti in range(total3):
                t = ranked[ti]
                tmask = masks3[t]
                if tmask & used:
                    continue
                upper = roy3[t] + fl_value if fl_rows else score3[t]
                if rb + rm + upper <= best:
                    break
                vt = vals3[t]
                if tmask & joker_mask and vt > vm:
                    _subset_row(cards, tmask, three)
                    vt = row_value(tables, three, 0, 3, 3, 0, vm)
                    if vt < 0:
                        continue
                elif vt > vm:
                    continue
                t_v, m_v, b_v = vt, vm, vb
                # Jokers in two rows were valued row by row (an upper bound): the setting's
                # own value assigns them together (R-JOKER-1: never the same card).
                split = ((tmask & joker_mask) != 0) + ((mmask & joker_mask) != 0) + (
                    (bmask & joker_mask) != 0) > 1
                if split or (joker_board and ((used | tmask) & joker_mask)):
                    _subset_row(cards, tmask, board[0:3])
                    _subset_row(cards, mmask, board[3:8])
                    _subset_row(cards, bmask, board[8:13])
                    fouled, t_v, m_v, b_v = finished(tables, board, count, joker_board, 0)
                    if fouled:
                        continue
                value = royalties_of(tables, False, t_v, m_v, b_v) + fl_value * (
                    next_fantasyland(tables, False, t_v, m_v, b_v, in_fantasyland)
                )
                if value > best:
                    best = value
                    best_b = bmask
                    best_m = mmask
                    best_t = tmask
                if (tmask & joker_mask) == 0 and not joker_board and not split:
                    break  # the first natural top that fits is the best for this middle
    return best, best_b, best_m, best_t


@compiled()
def setting_score(tables, board, fl_value, in_fantasyland, joker_board):
    """(value, fouled, Fantasyland next) of one whole setting (13 cards, 3/5/5)."""
    count = np.array([3, 5, 5], dtype=np.int64)
    fouled, vt, vm, vb = finished(tables, board, count, joker_board, 0)
    fl = next_fantasyland(tables, fouled, vt, vm, vb, in_fantasyland)
    return royalties_of(tables, fouled, vt, vm, vb) + fl_value * fl, fouled, fl
