# The C types of valuation.py for its compiled build (Cython's augmenting .pxd: the .py is the
# whole algorithm, this file only says what is a C number and what a fixed class). Kept in step
# with valuation.py: a name typed here that the source uses otherwise fails the build, and the
# two are held to the same bits by tests/test_compiled.py.
cimport cython

cdef long _STRONGHOLD, _NO_CARD, _NORMAL, _TAP, _READ, KEPT_LAYOUTS, KEPT_FACINGS
cdef dict _NO_RECORDS
cdef unsigned long long _ONE


cdef class Valuer:
    cdef public double win, stronghold_hp, shield_pair, unit, hp, damage, absorb, reflect, armor, muster
    cdef public double hand, siege, gap, off_line, target, neg_exposed, neg_exposed_dying, formation
    cdef public double blight, blight_danger, rout, tapped, boost, pierce, soul_bonus
    cdef public long blight_calm
    cdef public dict tables
    cdef public object wide

    cpdef CardTerms terms(self, pool)
    @cython.locals(static=CardTerms, entry=tuple)
    cpdef double evaluate(self, state, long seat)
    @cython.locals(static=CardTerms)
    cpdef double evaluate_fresh(self, state, long seat)
    cpdef double ended(self, state, long seat)


cdef class CardTerms:
    cdef public Valuer w
    cdef public list extra, muster, fortress, armor, damage
    cdef public dict layouts
    cdef public long formation_size
    cdef public object board


cdef class UnitTerms:
    cdef public tuple second
    cdef public object unit
    cdef public object card
    cdef public long cell, damage, faction, hp, sh, max_hp
    cdef public double add
    cdef public bint stronghold, normal
    cdef public unsigned long long hit, threat, bit

    @cython.locals(w=Valuer, potency=cython.double, off=cython.double, has_gap=cython.bint, gap=cython.long,
                   pot=cython.double, cell=cython.long)
    cpdef facing(self, long target_sh, CardTerms static)


cdef class SideTerms:
    cdef public CardTerms static
    cdef public long active, sh_cell, best
    cdef public object mask, on, pick, units, hp_range
    cdef public dict records, deltas
    cdef public list warriors
    cdef public double value
    cdef public unsigned long long hits, threat, formed


@cython.locals(w=Valuer, r=UnitTerms, hp=cython.long, max_hp=cython.long, absorb=cython.long,
               reflect=cython.long, weapon=cython.long, armor=cython.long, power=cython.long,
               boost=cython.long, tap=cython.long, card_id=cython.long, damage=cython.long,
               worth=cython.double, normal=cython.bint)
cpdef UnitTerms unit_terms(unit, long cell, card, CardTerms static, bint boosted)


@cython.locals(kept=SideTerms, t=SideTerms, r=UnitTerms, old=dict, records=dict, same_cells=cython.bint,
               v=cython.double, sh_cell=cython.long, side_hits=cython.ulonglong, side_threat=cython.ulonglong,
               side_best=cython.long, low=cython.long, high=cython.long, hp=cython.long, mine=list,
               formed=cython.ulonglong, size=cython.long, layouts=dict, active=cython.long)
cpdef SideTerms side_terms(state, long s, CardTerms static, memo)


@cython.locals(w=Valuer, target_sh=cython.long, enemy_threat=cython.ulonglong, enemy_best=cython.long,
               kept=dict, formed=cython.ulonglong, out=list, r=UnitTerms, bit=cython.ulonglong)
cpdef list _deltas(CardTerms static, SideTerms mine, SideTerms enemy, tuple facing)


@cython.locals(v0=cython.double, v1=cython.double)
cpdef double _difference(state, CardTerms static, SideTerms first, SideTerms second, long seat)


@cython.locals(w=Valuer, v=cython.double, fortress=list, muster=list, best=cython.long, low=cython.long,
               high=cython.long, kept=dict, deltas=list, blight=cython.long, d=cython.double)
cpdef double _seat_value(state, CardTerms static, long s, SideTerms mine, SideTerms enemy)
