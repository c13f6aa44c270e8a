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

MASK = (1 << HASH_BITS) - 1
OFFSET = (0, 3, 8)
SIZE = (3, 5, 5)
BIG = 1 << 40
JOKER = 52

# Probabilities that a draw (2, 3 or 4 suited cards / ranks within a straight's window)
# completes, by cards held (index) and slots left scaled by the variant's looks per slot.
FLUSH_COMPLETE = (0.0, 0.0, 0.10, 0.22, 0.42, 0.0)
STRAIGHT_COMPLETE = (0.0, 0.0, 0.08, 0.16, 0.32, 0.0)
STRENGTH = (0.30, 0.22, 0.18)
TOP_PAIR_DRAW = 0.10


@njit(cache=True)
def lookup(keys, values, flushes, key, flush):  # type: ignore[no-untyped-def]
    slot = ((key * HASH_MULTIPLIER) >> HASH_SHIFT) & MASK
    while keys[slot] != key:
        slot = (slot + 1) & MASK
    if flush:
        return flushes[slot]
    return values[slot]


@njit(cache=True)
def row_value(tables, cards, start, n, size, excluded, limit):  # type: ignore[no-untyped-def]
    """The value of ``cards[start:start+n]`` (a row of ``size`` slots); a joker stands for the
    best card not in the row nor in ``excluded`` (a 52-bit mask) whose value is at most
    ``limit``. -1 when no assignment stays at or below ``limit``."""
    keys, values, flushes, rank_key, suit_bit = tables[0], tables[1], tables[2], tables[3], tables[4]
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
            v = lookup(keys, values, flushes, key + rank_key[s], five and (suits & suit_bit[s]) != 0)
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


@njit(cache=True)
def board_mask(board, count):  # type: ignore[no-untyped-def]
    mask = 0
    for r in range(3):
        for i in range(count[r]):
            c = board[OFFSET[r] + i]
            if c < JOKER:
                mask |= 1 << c
    return mask


@njit(cache=True)
def finished(tables, board, count, joker_board):  # type: ignore[no-untyped-def]
    """(fouled, top, middle, bottom values) of a board. Jokers (R-JOKER-2): the strongest
    bottom, then the strongest middle not above it, then the strongest top not above that;
    ``joker_board`` excludes the player's own board cards (``joker_excludes`` board)."""
    if count[0] != 3 or count[1] != 5 or count[2] != 5:
        return True, 0, 0, 0
    excluded = board_mask(board, count) if joker_board else 0
    vb = row_value(tables, board, 8, 5, 5, excluded, BIG)
    vm = row_value(tables, board, 3, 5, 5, excluded, vb)
    if vm < 0:
        return True, 0, 0, vb
    vt = row_value(tables, board, 0, 3, 3, excluded, vm)
    if vt < 0:
        return True, 0, vm, vb
    return False, vt, vm, vb


@njit(cache=True)
def royalties_of(tables, fouled, vt, vm, vb):  # type: ignore[no-untyped-def]
    if fouled:
        return 0
    royalty = tables[5]
    return royalty[0, vt >> 16] + royalty[1, vm >> 16] + royalty[2, vb >> 16]


@njit(cache=True)
def next_fantasyland(tables, fouled, vt, vm, vb, in_fantasyland):  # type: ignore[no-untyped-def]
    """R-FL-1 entry or R-FL-3 stay: 1 when the board earns the next hand in Fantasyland."""
    if fouled:
        return 0
    entry, stay = tables[6], tables[7]
    if in_fantasyland:
        if stay[0, vt >> 16] or stay[1, vm >> 16] or stay[2, vb >> 16]:
            return 1
        return 0
    return 1 if entry[vt >> 16] > 0 else 0


@njit(cache=True)
def pair_points(fa, ta, ma, ba, ra, fb, tb, mb, bb, rb, scoop):  # type: ignore[no-untyped-def]
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


@njit(cache=True)
def _straight_window(rankmask):  # type: ignore[no-untyped-def]
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


@njit(cache=True)
def row_gain(tables, r, v, n, suits, rankmask, naturals, fl_value, looks):  # type: ignore[no-untyped-def]
    """What a row is worth on its own: royalties made, the Fantasyland entry a top row
    holds, completing draws and strength (docs/REVIEW-POLICY.md)."""
    royalty, entry = tables[5], tables[6]
    coarse = v >> 16
    category = v >> 20
    room = SIZE[r] - n
    gain = float(royalty[r, coarse])
    if r == 0:
        if entry[coarse] > 0:
            gain += fl_value
        elif room > 0 and category == 0 and (coarse & 15) >= 12:
            gain += TOP_PAIR_DRAW * room * looks * (royalty[0, (1 << 4) | (coarse & 15)] + fl_value)
    elif room > 0 and naturals == n and n >= 2:
        held = n if n < 5 else 4
        if suits != 0:
            p = FLUSH_COMPLETE[held] * min(1.0, room * looks / (5 - held))
            gain += p * (royalty[r, (5 << 4) | 14] + 1.0)
        if category == 0 and _straight_window(rankmask):
            p = STRAIGHT_COMPLETE[held] * min(1.0, room * looks / (5 - held))
            gain += p * (royalty[r, (4 << 4) | 10] + 0.8)
    gain += STRENGTH[r] * (category + ((coarse & 15) / 14.0))
    return gain


@njit(cache=True)
def pair_risk(upper, lower, room_lower, looks):  # type: ignore[no-untyped-def]
    """Chance that ``lower`` ends weaker than ``upper`` (as it stands now)."""
    if upper <= lower:
        return 0.0
    if room_lower == 0:
        return 1.0
    k = room_lower * looks
    gap = (upper >> 20) - (lower >> 20)
    if gap <= 0:
        catch = 1.0 - 0.55**k
    elif gap == 1:
        catch = 1.0 - 0.8**k
    elif gap == 2:
        catch = 0.5 * (1.0 - 0.85**k)
    else:
        catch = 0.03 * k
    return 1.0 - catch


@njit(cache=True)
def choose(tables, boards, counts, p, dealt, nd, place, fl_value, foul_cost, looks, excluded,
           choice):  # type: ignore[no-untyped-def]
    """Place ``nd`` dealt cards (``place`` of them, the rest discarded) on player ``p``'s
    board by the policy; ``choice[i]`` gets card i's row (3: discarded). Applies it."""
    rank_key, suit_bit = tables[3], tables[4]
    nmask = 1 << nd
    values = np.full((3, nmask), -1, dtype=np.int64)
    gains = np.zeros((3, nmask))
    board = boards[p]
    count = counts[p]
    for r in range(3):
        base_key = 0
        base_suits = 15
        base_ranks = 0
        base_jokers = 0
        for i in range(count[r]):
            c = board[OFFSET[r] + i]
            if c >= JOKER:
                base_jokers += 1
            else:
                base_key += rank_key[c]
                base_suits &= suit_bit[c]
                base_ranks |= 1 << (c // 4)
        room = SIZE[r] - count[r]
        row = np.empty(5, dtype=np.int64)
        for i in range(count[r]):
            row[i] = board[OFFSET[r] + i]
        for m in range(nmask):
            k = 0
            key = base_key
            suits = base_suits
            ranks = base_ranks
            jokers = base_jokers
            for i in range(nd):
                if (m >> i) & 1:
                    k += 1
                    c = dealt[i]
                    if k <= room:
                        row[count[r] + k - 1] = c
                    if c >= JOKER:
                        jokers += 1
                    else:
                        key += rank_key[c]
                        suits &= suit_bit[c]
                        ranks |= 1 << (c // 4)
            if k > room:
                continue
            n = count[r] + k
            if jokers:
                v = row_value(tables, row, 0, n, SIZE[r], excluded, BIG)
            else:
                v = lookup(tables[0], tables[1], tables[2], key,
                           n == 5 and r > 0 and suits != 0)
            values[r, m] = v
            gains[r, m] = row_gain(tables, r, v, n, suits, ranks, n - jokers, fl_value, looks)
    keep = place
    best = -1e300
    best_code = -1
    total = 1
    for i in range(nd):
        total *= 4
    for code in range(total):
        x = code
        masks0 = 0
        masks1 = 0
        masks2 = 0
        thrown = 0
        for i in range(nd):
            d = x & 3
            x >>= 2
            if d == 3:
                thrown += 1
            elif d == 0:
                masks0 |= 1 << i
            elif d == 1:
                masks1 |= 1 << i
            else:
                masks2 |= 1 << i
        if thrown != nd - keep:
            continue
        vt = values[0, masks0]
        vm = values[1, masks1]
        vb = values[2, masks2]
        if vt < 0 or vm < 0 or vb < 0:
            continue
        nt = count[0] + _popcount(masks0)
        nm = count[1] + _popcount(masks1)
        nb = count[2] + _popcount(masks2)
        risk_mb = pair_risk(vm, vb, 5 - nb, looks)
        risk_tm = pair_risk(vt, vm, 5 - nm, looks)
        if nt == 3 and nm == 5 and nb == 5:
            risk_tm = 1.0 if vt > vm else 0.0
        risk = 1.0 - (1.0 - risk_mb) * (1.0 - risk_tm)
        gain = gains[0, masks0] + gains[1, masks1] + gains[2, masks2]
        score = (1.0 - risk) * gain - risk * foul_cost
        if score > best:
            best = score
            best_code = code
    x = best_code
    for i in range(nd):
        d = x & 3
        x >>= 2
        choice[i] = d
        if d < 3:
            board[OFFSET[d] + count[d]] = dealt[i]
            count[d] += 1


@njit(cache=True)
def _popcount(m):  # type: ignore[no-untyped-def]
    n = 0
    while m:
        m &= m - 1
        n += 1
    return n


# -- Fantasyland: the policy's quick setting and the exact search -------------------------


@njit(cache=True)
def _best_five(tables, cards, used, limit, out):  # type: ignore[no-untyped-def]
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


@njit(cache=True)
def fantasyland_quick(tables, cards, board, count):  # type: ignore[no-untyped-def]
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


@njit(cache=True)
def _mix(z):  # type: ignore[no-untyped-def]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def make_deals(seed, first, count, pool, length):  # type: ignore[no-untyped-def]
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


@njit(cache=True)
def rollouts(tables, boards0, counts0, next_street0, fantasyland, fl_cards, in_fl_before, hero,
             cand_cards, cand_rows, which, deals, streets, scoop, fl_value, joker_board,
             foul_cost, looks, out_value, out_foul, out_fl):  # type: ignore[no-untyped-def]
    """Play out every deal for each candidate in ``which`` (common random numbers: the same
    deals for all), filling ``out_*[k, j]`` for candidate ``which[k]`` and deal j.

    ``cand_cards[c, i]`` / ``cand_rows[c, i]`` are the hero's cards and their rows (3:
    discarded, -1: unused slot); ``streets[t] = (dealt, placed)``; ``next_street0[p]`` the
    first street (1-based) player p has still to play (0 for a Fantasyland player)."""
    players = boards0.shape[0]
    boards = np.empty_like(boards0)
    counts = np.empty_like(counts0)
    nxt = np.empty_like(next_street0)
    choice = np.empty(8, dtype=np.int64)
    final = np.empty((players, 5), dtype=np.int64)
    nstreets = streets.shape[0]
    hand_cards = np.empty(32, dtype=np.int64)
    for k in range(which.shape[0]):
        cand = which[k]
        for j in range(deals.shape[0]):
            deal = deals[j]
            boards[:, :] = boards0
            counts[:, :] = counts0
            nxt[:] = next_street0
            for i in range(cand_cards.shape[1]):
                r = cand_rows[cand, i]
                if 0 <= r < 3:
                    boards[hero, OFFSET[r] + counts[hero, r]] = cand_cards[cand, i]
                    counts[hero, r] += 1
            nxt[hero] += 1
            ptr = 0
            for p in range(players):
                if fantasyland[p]:
                    cards = deal[ptr:ptr + fl_cards[p]]
                    ptr += fl_cards[p]
                    fantasyland_quick(tables, cards, boards[p], counts[p])
            for t in range(1, nstreets + 1):
                nd = streets[t - 1, 0]
                place = streets[t - 1, 1]
                for p in range(players):
                    if fantasyland[p] or nxt[p] != t:
                        continue
                    for i in range(nd):
                        hand_cards[i] = deal[ptr + i]
                    ptr += nd
                    excluded = board_mask(boards[p], counts[p]) if joker_board else 0
                    choose(tables, boards, counts, p, hand_cards[:nd], nd, place, fl_value,
                           foul_cost, looks, excluded, choice)
                    nxt[p] = t + 1
            for p in range(players):
                fouled, vt, vm, vb = finished(tables, boards[p], counts[p], joker_board)
                final[p, 0] = 1 if fouled else 0
                final[p, 1] = vt
                final[p, 2] = vm
                final[p, 3] = vb
                final[p, 4] = royalties_of(tables, fouled, vt, vm, vb)
            h = hero
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


@njit(cache=True)
def _subset_row(cards, mask, out):  # type: ignore[no-untyped-def]
    k = 0
    i = 0
    while mask:
        if mask & 1:
            out[k] = cards[i]
            k += 1
        mask >>= 1
        i += 1
    return k


@njit(cache=True)
def fantasyland_search(tables, cards, fl_value, in_fantasyland, joker_board):  # type: ignore[no-untyped-def]
    """The best setting of ``cards`` (13..17, jokers included) by royalties + ``fl_value`` if
    it earns Fantasyland next, legal settings only: (value, bottom mask, middle mask, top
    mask) over card positions; value -1 when no legal setting exists.

    Branch and bound, pruning by row order: bottoms and middles are visited from the strongest
    down, and a row's royalty never rises as its value falls (the tables are monotone in
    category), so once a bound built from the current row's royalty, the best middle royalty
    below it and the best top royalty anywhere cannot beat the best found, every later one is
    cut too. Jokers take the best card allowed under each row's limit (R-JOKER-2)."""
    royalty = tables[5]
    stay = tables[6 + 1]
    n = cards.shape[0]
    # Every 5-card subset with its strongest value (jokers at their best).
    total = 0
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                for d in range(c + 1, n):
                    total += n - d - 1
    masks = np.empty(total, dtype=np.int64)
    vals = np.empty(total, dtype=np.int64)
    row = np.empty(5, dtype=np.int64)
    k = 0
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                for d in range(c + 1, n):
                    for e in range(d + 1, n):
                        row[0] = cards[a]
                        row[1] = cards[b]
                        row[2] = cards[c]
                        row[3] = cards[d]
                        row[4] = cards[e]
                        masks[k] = (1 << a) | (1 << b) | (1 << c) | (1 << d) | (1 << e)
                        vals[k] = row_value(tables, row, 0, 5, 5, 0, BIG)
                        k += 1
    order = np.argsort(-vals, kind="mergesort")
    masks = masks[order]
    vals = vals[order]
    joker_mask = 0
    for i in range(n):
        if cards[i] >= JOKER:
            joker_mask |= 1 << i
    # The best top royalty and whether trips on top are possible at all (bounds).
    top_best = 0
    trips_top = False
    three = np.empty(3, dtype=np.int64)
    for a in range(n):
        for b in range(a + 1, n):
            for c in range(b + 1, n):
                three[0] = cards[a]
                three[1] = cards[b]
                three[2] = cards[c]
                v = row_value(tables, three, 0, 3, 3, 0, BIG)
                top_best = max(top_best, royalty[0, v >> 16])
                if (v >> 20) == 3:
                    trips_top = True
    entry = tables[6]
    top_fl = False
    for coarse in range(entry.shape[0]):
        if entry[coarse] > 0:
            top_fl = True
    best = -1.0
    best_b = 0
    best_m = 0
    best_t = 0
    board = np.empty(13, dtype=np.int64)
    count = np.array([3, 5, 5], dtype=np.int64)
    full = (1 << n) - 1
    for bi in range(total):
        bmask = masks[bi]
        vb = vals[bi]
        rb = royalty[2, vb >> 16]
        if in_fantasyland:
            fl_b = stay[2, vb >> 16] or stay[1, vb >> 16] or trips_top
        else:
            fl_b = top_fl
        bound = rb + royalty[1, vb >> 16] + top_best + (fl_value if fl_b else 0.0)
        if bound <= best:
            break
        for mi in range(total):
            mmask = masks[mi]
            if mmask & bmask:
                continue
            vm_max = vals[mi]
            cap = vm_max if vm_max < vb else vb
            if in_fantasyland:
                fl_m = stay[2, vb >> 16] or stay[1, cap >> 16] or trips_top
            else:
                fl_m = top_fl
            mbound = rb + royalty[1, cap >> 16] + top_best + (fl_value if fl_m else 0.0)
            if mbound <= best:
                if vm_max <= vb:
                    break
                continue
            if mmask & joker_mask:
                _subset_row(cards, mmask, row)
                vm = row_value(tables, row, 0, 5, 5, 0, vb)
                if vm < 0:
                    continue
            else:
                if vm_max > vb:
                    continue
                vm = vm_max
            rm = royalty[1, vm >> 16]
            rest = full & ~bmask & ~mmask
            for a in range(n):
                if not (rest >> a) & 1:
                    continue
                for b in range(a + 1, n):
                    if not (rest >> b) & 1:
                        continue
                    for c in range(b + 1, n):
                        if not (rest >> c) & 1:
                            continue
                        three[0] = cards[a]
                        three[1] = cards[b]
                        three[2] = cards[c]
                        vt = row_value(tables, three, 0, 3, 3, 0, vm)
                        if vt < 0:
                            continue
                        tmask = (1 << a) | (1 << b) | (1 << c)
                        fouled = False
                        t_v, m_v, b_v = vt, vm, vb
                        if joker_board and ((bmask | mmask | tmask) & joker_mask):
                            _subset_row(cards, tmask, board[0:3])
                            _subset_row(cards, mmask, board[3:8])
                            _subset_row(cards, bmask, board[8:13])
                            fouled, t_v, m_v, b_v = finished(tables, board, count, True)
                            if fouled:
                                continue
                        value = royalties_of(tables, fouled, t_v, m_v, b_v) + fl_value * (
                            next_fantasyland(tables, fouled, t_v, m_v, b_v, in_fantasyland)
                        )
                        if value > best:
                            best = value
                            best_b = bmask
                            best_m = mmask
                            best_t = tmask
    return best, best_b, best_m, best_t


@njit(cache=True)
def setting_score(tables, board, fl_value, in_fantasyland, joker_board):  # type: ignore[no-untyped-def]
    """(value, fouled, Fantasyland next) of one whole setting (13 cards, 3/5/5)."""
    count = np.array([3, 5, 5], dtype=np.int64)
    fouled, vt, vm, vb = finished(tables, board, count, joker_board)
    fl = next_fantasyland(tables, fouled, vt, vm, vb, in_fantasyland)
    return royalties_of(tables, fouled, vt, vm, vb) + fl_value * fl, fouled, fl
