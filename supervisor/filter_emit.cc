#include "supervisor/filter_emit.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stddef.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/types/span.h"

namespace klaunch {
namespace {

// Where the low and the high half of argument `arg` are (x86-64 is
// little-endian).
uint32_t LowHalf(unsigned arg) {
  return offsetof(seccomp_data, args) + 8 * arg;
}
uint32_t HighHalf(unsigned arg) { return LowHalf(arg) + 4; }
uint32_t Low(uint64_t v) { return static_cast<uint32_t>(v); }
uint32_t High(uint64_t v) { return static_cast<uint32_t>(v >> 32); }

// Classic BPF jumps only forward, a conditional one by at most 255: the
// program is written with labels and the offsets are filled in at the end.
class Program {
 public:
  static constexpr int kNext = -1;  // the next instruction

  int NewLabel() {
    where_.push_back(-1);
    return static_cast<int>(where_.size()) - 1;
  }
  void Bind(int label) { where_[label] = static_cast<int>(code_.size()); }

  void Load(uint32_t offset) {
    code_.push_back(BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offset));
  }
  void And(uint32_t mask) {
    code_.push_back(BPF_STMT(BPF_ALU | BPF_AND | BPF_K, mask));
  }
  void Return(uint32_t action) {
    code_.push_back(BPF_STMT(BPF_RET | BPF_K, action));
  }
  // A compared with k: to `yes` when `op` holds, else to `no`.
  void JumpIf(uint16_t op, uint32_t k, int yes, int no) {
    fixes_.push_back({code_.size(), yes, no, false});
    code_.push_back(BPF_JUMP(BPF_JMP | op | BPF_K, k, 0, 0));
  }
  void JumpTo(int label) {
    fixes_.push_back({code_.size(), label, kNext, true});
    code_.push_back(BPF_STMT(BPF_JMP | BPF_JA, 0));
  }

  absl::StatusOr<std::vector<sock_filter>> Finish() {
    for (const Fix& f : fixes_) {
      sock_filter& insn = code_[f.pc];
      if (f.always) {
        const int by = where_[f.yes] - static_cast<int>(f.pc) - 1;
        if (where_[f.yes] < 0 || by < 0) return Bad("a jump goes backwards");
        insn.k = static_cast<uint32_t>(by);
        continue;
      }
      for (const auto& [label, field] :
           {std::pair{f.yes, &insn.jt}, std::pair{f.no, &insn.jf}}) {
        if (label == kNext) continue;
        const int by = where_[label] - static_cast<int>(f.pc) - 1;
        if (where_[label] < 0 || by < 0 || by > 255) {
          return Bad(
              absl::StrCat("a conditional jump of ", by, " instructions"));
        }
        *field = static_cast<uint8_t>(by);
      }
    }
    if (code_.size() > BPF_MAXINSNS) {
      return Bad(absl::StrCat("the program has ", code_.size(),
                              " instructions, more than the kernel takes (",
                              BPF_MAXINSNS, ")"));
    }
    return std::move(code_);
  }

 private:
  static absl::Status Bad(absl::string_view why) {
    return absl::InternalError(
        absl::StrCat("emitting the seccomp filter: ", why));
  }
  struct Fix {
    size_t pc;
    int yes, no;
    bool always;
  };
  std::vector<sock_filter> code_;
  std::vector<int> where_;
  std::vector<Fix> fixes_;
};

// One half of a masked comparison: (half & mask) == (value & mask), as
// libseccomp compiles it (the value's bits outside the mask do not count).
void MaskedHalf(Program& p, uint32_t offset, uint32_t mask, uint32_t value,
                int fail) {
  if (mask == 0) return;  // 0 == 0
  p.Load(offset);
  if (mask != 0xffffffffu) p.And(mask);
  p.JumpIf(BPF_JEQ, value & mask, Program::kNext, fail);
}

// Falls through when `c` holds, jumps to `fail` when it does not.
absl::Status Compare(Program& p, const scmp_arg_cmp& c, int fail) {
  if (c.arg > 5) {
    return absl::InternalError(
        absl::StrCat("emitting the seccomp filter: argument ", c.arg));
  }
  const uint32_t lo = LowHalf(c.arg), hi = HighHalf(c.arg);
  const uint64_t a = c.datum_a, b = c.datum_b;
  switch (c.op) {
    case SCMP_CMP_EQ:
      p.Load(hi);
      p.JumpIf(BPF_JEQ, High(a), Program::kNext, fail);
      p.Load(lo);
      p.JumpIf(BPF_JEQ, Low(a), Program::kNext, fail);
      return absl::OkStatus();
    case SCMP_CMP_NE: {
      const int holds = p.NewLabel();
      p.Load(hi);
      p.JumpIf(BPF_JEQ, High(a), Program::kNext, holds);
      p.Load(lo);
      p.JumpIf(BPF_JEQ, Low(a), fail, Program::kNext);
      p.Bind(holds);
      return absl::OkStatus();
    }
    case SCMP_CMP_GE: {
      // Unsigned, as the registers are: the high halves decide unless
      // they are equal.
      const int holds = p.NewLabel();
      p.Load(hi);
      p.JumpIf(BPF_JGT, High(a), holds, Program::kNext);
      p.JumpIf(BPF_JGE, High(a), Program::kNext, fail);
      p.Load(lo);
      p.JumpIf(BPF_JGE, Low(a), Program::kNext, fail);
      p.Bind(holds);
      return absl::OkStatus();
    }
    case SCMP_CMP_MASKED_EQ:
      MaskedHalf(p, hi, High(a), High(b), fail);
      MaskedHalf(p, lo, Low(a), Low(b), fail);
      return absl::OkStatus();
    default:
      return absl::InternalError(
          absl::StrCat("emitting the seccomp filter: comparison ", c.op,
                       " on argument ", c.arg));
  }
}

// A comparison that tests bits of one argument for a value, as
// ((high half & hi_mask) == hi_value) && ((low half & lo_mask) == lo_value):
// == and masked ==. Rules testing the same bits of the same argument for
// different values make a chain, whose halves are loaded once.
struct ValueTest {
  unsigned arg = 0;
  uint32_t hi_mask = 0, hi_value = 0, lo_mask = 0, lo_value = 0;
};

bool AsValueTest(const scmp_arg_cmp& c, ValueTest* t) {
  t->arg = c.arg;
  if (c.op == SCMP_CMP_EQ) {
    t->hi_mask = t->lo_mask = 0xffffffffu;
    t->hi_value = High(c.datum_a);
    t->lo_value = Low(c.datum_a);
    return true;
  }
  if (c.op == SCMP_CMP_MASKED_EQ) {
    t->hi_mask = High(c.datum_a);
    t->lo_mask = Low(c.datum_a);
    t->hi_value = High(c.datum_b) & t->hi_mask;
    t->lo_value = Low(c.datum_b) & t->lo_mask;
    return true;
  }
  return false;
}

// Whether `a` and `b` test the same bits, and the same high half, so that
// one loaded low half serves both.
bool SameChain(const scmp_arg_cmp& a, const scmp_arg_cmp& b) {
  ValueTest x, y;
  return a.arg <= 5 && AsValueTest(a, &x) && AsValueTest(b, &y) &&
         x.arg == y.arg && x.lo_mask != 0 && x.lo_mask == y.lo_mask &&
         x.hi_mask == y.hi_mask && x.hi_value == y.hi_value;
}

bool SameComparison(const scmp_arg_cmp& a, const scmp_arg_cmp& b) {
  return a.arg == b.arg && a.op == b.op && a.datum_a == b.datum_a &&
         a.datum_b == b.datum_b;
}

// Falls through when `c` holds, else goes to `fail` however far it is (a
// conditional jump reaches 255 instructions, an unconditional one any).
absl::Status CompareFar(Program& p, const scmp_arg_cmp& c, int fail) {
  const int no = p.NewLabel(), holds = p.NewLabel();
  if (absl::Status s = Compare(p, c, no); !s.ok()) return s;
  p.JumpTo(holds);
  p.Bind(no);
  p.JumpTo(fail);
  p.Bind(holds);
  return absl::OkStatus();
}

// `s`, saying which call's rules it came from.
absl::Status NamingCall(const absl::Status& s, const char* call) {
  return absl::Status(s.code(), absl::StrCat(s.message(), " (", call, ")"));
}

// Rules in order, the first `depth` comparisons of each known to hold:
// the first rule whose other comparisons hold answers. Falls through when
// none does; *ends set when one holds whatever the arguments (what follows
// it is never reached, and is not written).
//
// The rules are written as they read but for two shapes, which cost the
// table's socket rules most of their length: consecutive rules that share
// their next comparison make it once (when it fails, none of them can
// hold), and consecutive rules whose last comparison tests the same bits
// for different values load those bits once and compare each value.
absl::Status EmitRules(Program& p, absl::Span<const FilterRule> rules,
                       size_t depth, const char* call, bool* ends) {
  *ends = false;
  size_t i = 0;
  while (i < rules.size()) {
    const FilterRule& rule = rules[i];
    if (rule.cmp.size() == depth) {
      p.Return(rule.action);
      *ends = true;
      return absl::OkStatus();
    }
    const scmp_arg_cmp& first = rule.cmp[depth];
    size_t shared = i + 1;
    while (shared < rules.size() && rules[shared].cmp.size() > depth &&
           SameComparison(rules[shared].cmp[depth], first)) {
      ++shared;
    }
    if (shared - i > 1) {
      const int after = p.NewLabel();
      if (absl::Status s = CompareFar(p, first, after); !s.ok()) {
        return NamingCall(s, call);
      }
      bool inner_ends;
      if (absl::Status s = EmitRules(p, rules.subspan(i, shared - i), depth + 1,
                                     call, &inner_ends);
          !s.ok()) {
        return s;
      }
      p.Bind(after);
      i = shared;
      continue;
    }
    size_t chain = i;
    while (chain < rules.size() && rules[chain].cmp.size() == depth + 1 &&
           SameChain(rules[chain].cmp[depth], first)) {
      ++chain;
    }
    if (chain - i > 1) {
      ValueTest t;
      AsValueTest(first, &t);
      const int after = p.NewLabel();
      if (t.hi_mask != 0) {
        const int holds = p.NewLabel();
        p.Load(HighHalf(t.arg));
        if (t.hi_mask != 0xffffffffu) p.And(t.hi_mask);
        p.JumpIf(BPF_JEQ, t.hi_value, holds, Program::kNext);
        p.JumpTo(after);
        p.Bind(holds);
      }
      p.Load(LowHalf(t.arg));
      if (t.lo_mask != 0xffffffffu) p.And(t.lo_mask);
      for (size_t k = i; k < chain; ++k) {
        ValueTest v;
        AsValueTest(rules[k].cmp[depth], &v);
        const int next = p.NewLabel();
        p.JumpIf(BPF_JEQ, v.lo_value, Program::kNext, next);
        p.Return(rules[k].action);
        p.Bind(next);
      }
      p.Bind(after);
      i = chain;
      continue;
    }
    const int next = p.NewLabel();
    for (size_t k = depth; k < rule.cmp.size(); ++k) {
      if (absl::Status s = Compare(p, rule.cmp[k], next); !s.ok()) {
        return NamingCall(s, call);
      }
    }
    p.Return(rule.action);
    p.Bind(next);
    ++i;
  }
  return absl::OkStatus();
}

// A call's rules in order, then the call let through. Nothing after it
// runs: every way out is a return.
absl::Status CallBlock(Program& p, const CallRules& call) {
  bool ends;
  if (absl::Status s = EmitRules(p, call.rules, 0, call.name, &ends); !s.ok()) {
    return s;
  }
  if (!ends) p.Return(SECCOMP_RET_ALLOW);
  return absl::OkStatus();
}

// A run of numbers with one answer whatever the arguments, or one number
// whose rules look at them.
struct Span {
  uint32_t first;
  bool simple;
  uint32_t action;        // when simple
  const CallRules* call;  // when not
};

// The answer of a call whose rules do not look at the arguments.
bool OneAnswer(const CallRules& call, uint32_t* action) {
  if (call.rules.empty()) {
    *action = SECCOMP_RET_ALLOW;
    return true;
  }
  if (call.rules.front().cmp.empty()) {
    *action = call.rules.front().action;
    return true;
  }
  return false;
}

// A holds the number: a binary search on it over spans [lo, hi).
absl::Status Search(Program& p, const std::vector<Span>& spans, size_t lo,
                    size_t hi) {
  if (hi - lo == 1) {
    const Span& s = spans[lo];
    if (s.simple) {
      p.Return(s.action);
      return absl::OkStatus();
    }
    return CallBlock(p, *s.call);
  }
  const size_t mid = lo + (hi - lo) / 2;
  const int left = p.NewLabel(), right = p.NewLabel();
  // The right half is far away: a conditional jump reaches the next
  // instruction, which jumps there unconditionally.
  p.JumpIf(BPF_JGE, spans[mid].first, Program::kNext, left);
  p.JumpTo(right);
  p.Bind(left);
  if (absl::Status s = Search(p, spans, lo, mid); !s.ok()) return s;
  p.Bind(right);
  return Search(p, spans, mid, hi);
}

}  // namespace

absl::StatusOr<std::vector<sock_filter>> EmitFilter(
    const std::vector<CallRules>& calls) {
  if (calls.empty()) {
    return absl::InternalError("emitting the seccomp filter: no calls");
  }
  std::vector<Span> spans;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].nr != static_cast<int>(i)) {
      return absl::InternalError(
          absl::StrCat("emitting the seccomp filter: number ", i,
                       " is missing (", calls[i].name, ")"));
    }
    uint32_t action;
    if (OneAnswer(calls[i], &action)) {
      if (!spans.empty() && spans.back().simple &&
          spans.back().action == action) {
        continue;  // the run goes on
      }
      spans.push_back({static_cast<uint32_t>(i), true, action, nullptr});
    } else {
      spans.push_back({static_cast<uint32_t>(i), false, 0, &calls[i]});
    }
  }
  Program p;
  const int refuse = p.NewLabel(), known = p.NewLabel();
  p.Load(offsetof(seccomp_data, arch));
  p.JumpIf(BPF_JEQ, AUDIT_ARCH_X86_64, Program::kNext, refuse);
  // x32's numbers have bit 30 set: past the last, as is every number no
  // table names.
  p.Load(offsetof(seccomp_data, nr));
  p.JumpIf(BPF_JGT, static_cast<uint32_t>(calls.size() - 1), refuse, known);
  p.Bind(refuse);
  p.Return(SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
  p.Bind(known);
  if (absl::Status s = Search(p, spans, 0, spans.size()); !s.ok()) return s;
  return p.Finish();
}

}  // namespace klaunch
