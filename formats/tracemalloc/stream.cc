// tracemalloc snapshots a trace at a time (reader.h): the pickle is decoded
// as it is read, and each trace is added to the profile when it is appended
// to the list of traces, so what is kept is the memo's values in 4 bytes
// each (once a scan on the other core has found which indices a GET takes
// again, only those: pickle::TakenMemo), the frames of the tracebacks not
// yet added, what the builder keeps for the later traces of a traceback
// (none for one no GET takes again: its only trace) and the few objects
// around the list — not the whole pickle as objects (12 times the file).
//
// It takes the pickles CPython's Snapshot.dump() writes (protocols 2-5:
// the opcodes below, in the shape reader.h gives) and gives any other to
// the general path, which decodes the whole pickle and owns every error
// message and warning: an opcode outside those, a tuple that is not a
// frame, a traceback of frames or a trace, a frame, traceback or trace used
// anywhere but where a snapshot puts it, a memo index far past the others,
// anything the general decoder refuses, a profile past the memory budget.
//
// The functions are made as their frames are decoded; the general path
// makes them as it adds each trace, in the list's order. The two agree when
// each traceback's new frames come in the order the traces use them, which
// is how a pickle is written; each trace checks it, and the end checks that
// every function was used.
#include <algorithm>
#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "common/pickle.h"
#include "common/pickle_stream.h"
#include "common/python_text.h"
#include "graphgen/thread.h"
#include "tracemalloc/builder.h"
#include "tracemalloc/reader.h"

namespace graphgen::tracemalloc {

namespace {

using pickle::GiveUp;

// A value in 4 bytes: its kind in the top 3 bits, a small int or an index
// in the others.
using Ref = std::uint32_t;
enum Kind : std::uint32_t {
  kInt,       // an int of 0 to 2^29 - 1, itself
  kBigInt,    // another int: Stream::ints_
  kStr,       // Stream::strs_
  kFrame,     // (filename, lineno): its FuncId
  kFrames,    // a tuple of frames (a traceback): Stream::frames_
  kTrace,     // (domain, size, frames[, total_nframe]): Stream::traces_
  kSkeleton,  // a class, object, dict or list: Stream::skeleton_
};
constexpr std::uint32_t kPayload = (std::uint32_t{1} << 29) - 1;
constexpr Ref kUnset = UINT32_MAX;  // a memo slot not set (kind 7: no value has it)

Ref ref(Kind k, std::size_t payload) {
  if (payload > kPayload) throw GiveUp{};
  return k << 29 | static_cast<std::uint32_t>(payload);
}
Kind kind(Ref r) { return static_cast<Kind>(r >> 29); }
std::uint32_t payload(Ref r) { return r & kPayload; }

class Stream : pickle::StreamBase<Stream, Ref> {
  friend StreamBase;

 public:
  // `switch_at`: kOnTheOtherCore, or (tests) the scan first and its
  // result used after that many memo sets.
  static constexpr std::uint64_t kOnTheOtherCore = UINT64_MAX;
  Stream(const InputFile& in, const formats::ReadOptions& options, std::uint64_t switch_at)
      : StreamBase(in.bytes()), pages_(&in), out_(in, options), input_(in), switch_at_(switch_at) {
    // Room for every memo entry the input can make (one per two bytes at
    // most): growing by doubling held the old and new arrays at once. Room
    // not used costs no memory (only address space: reservable()).
    memo_.reserve(reservable_count<Ref>(std::min(in_.size() / 2, kMemoCap) + 16));
    // Meanwhile, on the other core, the indices a GET takes again: once
    // known, only their values are kept (use_taken()). A snapshot memoizes
    // every frame and trace tuple and takes none of them again: 4.6 of the
    // 4.8 MB of sympy's snapshot's memo. (No thread: every value is kept.)
    if (switch_at_ != kOnTheOtherCore) {
      taken_found_ = pickle::TakenMemo::scan(in_);
      scan_pending_ = true;
      return;
    }
    scanner_ = BesideThread::try_start([this] {
      taken_found_ = pickle::TakenMemo::scan(in_, &stop_scan_, &input_);
      scanned_.store(true, std::memory_order_release);
    });
    scan_pending_ = scanner_.joinable();
  }
  ~Stream() {
    stop_scan_.store(true, std::memory_order_relaxed);
    if (scanner_.joinable()) scanner_.join();
  }

  Profile run(Diagnostics& diag) {
    for (;;) {
      pages_.at(pos_);
      const unsigned char op = u8();
      if (op == '.') break;
      step(op);
    }
    if (!marks_.empty() || stack_.size() != 1) throw GiveUp{};
    // Snapshot.traces._traces must be the list the traces went to.
    const Skeleton& snapshot = state_of(stack_.back(), "Snapshot");
    const Skeleton& traces = state_of(member(snapshot, "traces"), "_Traces");
    if (const Ref limit = member(snapshot, "traceback_limit"); limit != kUnset && int_of(limit))
      out_.set_limit(*int_of(limit));
    const Ref list = member(traces, "_traces");
    if (list == kUnset || kind(list) != kSkeleton || payload(list) != list_) throw GiveUp{};
    if (processed_ != out_.functions()) throw GiveUp{};
    // (What was read is copied: the last pages passed go too.)
    input_.release_range(0, in_.size());
    return out_.finish(traces_in_list_, diag);
  }

 private:
  struct Frames {
    std::uint32_t begin = 0, count = 0;    // in arena_ (until its first trace)
    std::uint32_t traceback = UINT32_MAX;  // the builder's, from its first trace (kOnce: its only trace)
    // Whether a GET takes it again (for another trace): kUnknown until it
    // is memoized after the scan (every trace is kept for then).
    enum : std::uint8_t { kUnknown, kNotTaken, kTaken } again = kUnknown;
  };
  static constexpr std::uint32_t kOnce = UINT32_MAX - 1;
  struct Trace {
    std::int64_t bytes = 0, total = 0;
    std::uint32_t frames = 0;
    bool has_total = false;
  };
  struct Skeleton {
    enum { kClass, kObject, kDict, kList } type;
    std::string name;        // a class's
    Ref cls = kUnset;        // an object's
    Ref state = kUnset;      // an object's, from BUILD
    std::vector<Ref> items;  // a dict's key, value, key, value...
  };

  // ----- the stack
  void push(Ref r) { stack_.push_back(r); }
  // The skeleton of `type` under the first `size` entries of the stack, above the last MARK.
  Skeleton& top(decltype(Skeleton::type) type, std::size_t size) {
    size = std::min(size, stack_.size());
    if (size == 0 || (!marks_.empty() && size <= marks_.back())) throw GiveUp{};
    const Ref r = stack_[size - 1];
    if (kind(r) != kSkeleton || skeleton_[payload(r)].type != type) throw GiveUp{};
    return skeleton_[payload(r)];
  }
  Ref new_skeleton(Skeleton s) {
    if (skeleton_.size() >= kSkeletons) throw GiveUp{};  // a snapshot has seven
    skeleton_.push_back(std::move(s));
    return ref(kSkeleton, skeleton_.size() - 1);
  }

  // ----- values
  void push_int(std::int64_t v) {
    if (v >= 0 && v <= kPayload) return push(ref(kInt, static_cast<std::size_t>(v)));
    ints_.push_back(v);
    push(ref(kBigInt, ints_.size() - 1));
  }
  std::optional<std::int64_t> int_of(Ref r) const {
    if (kind(r) == kInt) return payload(r);
    if (kind(r) == kBigInt) return ints_[payload(r)];
    return std::nullopt;
  }
  // (Copied: a str taken from the memo again would bring back the pages
  // of the input given back since.)
  void str(std::string_view s) {
    if (!formats::valid_utf8_surrogatepass(s)) throw GiveUp{};
    strs_.push_back({text_.size(), s.size()});
    text_.append(s);
    push(ref(kStr, strs_.size() - 1));
  }
  std::string_view text(Ref r) const {
    const auto [at, size] = strs_[payload(r)];
    return std::string_view(text_).substr(at, size);
  }
  void global(std::string_view module, std::string_view name) {
    if (module != "tracemalloc" || (name != "Snapshot" && name != "_Traces")) throw GiveUp{};
    push(new_skeleton({Skeleton::kClass, std::string(name), kUnset, kUnset, {}}));
  }

  // A tuple of `items`: a frame, a traceback, a trace, or the general path's.
  void tuple(const Ref* items, std::size_t n) {
    if (n == 2 && kind(items[0]) == kStr) {
      const auto line = int_of(items[1]);
      if (!line || *line < 0) throw GiveUp{};
      return push(ref(kFrame, function(items[0], *line)));
    }
    if ((n == 3 || n == 4) && kind(items[2]) == kFrames) {
      const auto domain = int_of(items[0]), size = int_of(items[1]);
      const auto total = n == 4 ? int_of(items[3]) : std::optional<std::int64_t>(0);
      if (!domain || !size || *size < 0 || !total) throw GiveUp{};
      traces_.push_back({*size, *total, payload(items[2]), n == 4});
      return push(ref(kTrace, traces_base_ + traces_.size() - 1));
    }
    Frames f{static_cast<std::uint32_t>(arena_.size()), static_cast<std::uint32_t>(n)};
    for (std::size_t k = 0; k < n; ++k) {
      if (kind(items[k]) != kFrame) throw GiveUp{};
      arena_.push_back(payload(items[k]));
    }
    unused_ += n > 0;
    frames_.push_back(f);
    push(ref(kFrames, frames_.size() - 1));
  }

  // The function of (str, line), its file named once per str (a
  // snapshot's filenames are a few objects taken from the memo again): a
  // new text is interned when a frame first names it, as the general path
  // interns it, just before its first function is made.
  FuncId function(Ref file, std::int64_t line) {
    const std::uint32_t s = payload(file);
    if (s >= file_name_.size()) file_name_.resize(strs_.size(), kNoString);
    if (file_name_[s] == kNoString) file_name_[s] = out_.file_name(text(file));
    return out_.function(file_name_[s], line);
  }

  // A value appended to the list: a trace, added to the profile now.
  void append(Ref r) {
    if (kind(r) != kTrace || payload(r) < traces_base_) throw GiveUp{};
    const Trace& t = traces_[payload(r) - traces_base_];
    Frames& f = frames_[t.frames];
    ++traces_in_list_;
    if (!t.has_total)
      out_.uncertain(f.count);
    else if (t.total > static_cast<std::int64_t>(f.count))
      out_.cut();
    frames_buf_.clear();
    if (f.traceback == kOnce) throw GiveUp{};  // (its memo index was not taken again)
    if (f.traceback == UINT32_MAX) {
      // A traceback no GET takes again has no other trace: the builder
      // keeps nothing of it for one (70 % of sympy's tracebacks).
      f.traceback = f.again == Frames::kNotTaken ? kOnce : out_.new_traceback();
      unused_ -= f.count > 0;
      // Each function new to the profile must be the next one made.
      for (std::uint32_t k = 0; k < f.count; ++k) {
        const FuncId id = arena_[f.begin + k];
        if (id > processed_) throw GiveUp{};
        processed_ += id == processed_;
        frames_buf_.push_back(id);
      }
    }
    if (!(f.traceback == kOnce ? out_.only_trace(frames_buf_, t.bytes) : out_.trace(f.traceback, frames_buf_, t.bytes)))
      throw GiveUp{};
  }
  // After a batch of appends: the frames and traces all added are dropped.
  void compact() {
    if (unused_ == 0) arena_.clear();
    traces_base_ += traces_.size();
    traces_.clear();
  }

  // The memo: every index set, by index (memo_), or once the scan has
  // found which indices a GET takes (taken_), a bit per index set (set_)
  // and the values of the taken ones (memo_, by slot).
  void memoize(std::uint64_t index) {
    if (stack_.empty() || index >= ++memo_sets_ + 65536) throw GiveUp{};
    if (scan_pending_ &&
        (switch_at_ == kOnTheOtherCore ? scanned_.load(std::memory_order_acquire) : memo_sets_ > switch_at_))
      use_taken();
    if (taken_) {
      if (index / 64 >= set_.size()) set_.resize(index / 64 + 1, 0);
      const std::uint64_t bit = std::uint64_t{1} << (index % 64);
      memo_size_ += !(set_[index / 64] & bit);
      set_[index / 64] |= bit;
      const auto slot = taken_->slot(index);
      if (slot) memo_[*slot] = stack_.back();
      again(stack_.back(), slot.has_value());
      return;
    }
    if (index >= memo_.size()) memo_.resize(index + 1, kUnset);
    memo_size_ += memo_[index] == kUnset;
    memo_[index] = stack_.back();
  }
  void get(std::uint64_t index) {
    if (taken_) {
      const auto slot = taken_->slot(index);
      if (!slot || index / 64 >= set_.size() || !(set_[index / 64] >> (index % 64) & 1)) throw GiveUp{};
      return push(memo_[*slot]);
    }
    if (index >= memo_.size() || memo_[index] == kUnset) throw GiveUp{};
    push(memo_[index]);
  }
  // A value memoized at an index a GET takes again (`taken`) or not: a
  // traceback, or a trace holding one, taken again may have another trace;
  // one memoized only at indices no GET takes has none.
  void again(Ref r, bool taken) {
    if (kind(r) == kFrames) {
      Frames& f = frames_[payload(r)];
      if (taken || f.again == Frames::kUnknown) f.again = taken ? Frames::kTaken : Frames::kNotTaken;
    } else if (kind(r) == kTrace && taken && payload(r) >= traces_base_) {
      frames_[traces_[payload(r) - traces_base_].frames].again = Frames::kTaken;
    }
  }
  // The scan is done: the values memoized so far by index become the taken
  // ones' (none when the scan gave up: every value is kept to the end),
  // in place (a slot is never past its index). The room reserved stays:
  // given back, its 20 MB would raise malloc's mmap threshold past the
  // arrays that grow after (glibc's dynamic threshold), and each array
  // they outgrew would stay resident in the heap (2 MB more at the end).
  void use_taken() {
    scan_pending_ = false;
    if (scanner_.joinable()) scanner_.join();
    if (!taken_found_) return;
    taken_ = std::move(taken_found_);
    set_.assign(memo_.size() / 64 + 1, 0);
    for (std::size_t i = 0; i < memo_.size(); ++i) {
      const Ref r = memo_[i];
      if (r == kUnset) continue;
      set_[i / 64] |= std::uint64_t{1} << (i % 64);
      const auto slot = taken_->slot(i);
      if (slot) memo_[*slot] = r;
      again(r, slot.has_value());
    }
    // (A slot whose index is not set yet may hold another index's value:
    // a GET looks at set_ first, and memoize() writes the slot.)
    memo_.resize(taken_->size(), kUnset);
  }

  void set_item(Skeleton& dict, Ref k, Ref v) {
    for (Ref r : {k, v})
      if (kind(r) == kFrame || kind(r) == kFrames || kind(r) == kTrace) throw GiveUp{};
    if (kind(k) == kSkeleton && skeleton_[payload(k)].type != Skeleton::kClass) throw GiveUp{};  // unhashable
    if (dict.items.size() >= 2 * kSkeletons) throw GiveUp{};
    dict.items.push_back(k);
    dict.items.push_back(v);
  }

  // Marks, tuples, the list and dicts: false for another opcode.
  bool containers(unsigned char op) {
    switch (op) {
      case '(':
        marks_.push_back(stack_.size());
        return true;
      case ')':
        tuple(nullptr, 0);
        return true;
      case 0x85:
      case 0x86:
      case 0x87: {
        const int k = op - 0x84;
        Ref items[3];
        for (int j = k; j-- > 0;) items[j] = pop();
        tuple(items, static_cast<std::size_t>(k));
        return true;
      }
      case 't': {
        const std::size_t m = pop_mark();
        const std::size_t n = stack_.size() - m;
        items_.assign(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
        stack_.resize(m);
        tuple(items_.data(), n);
        return true;
      }
      case ']':
        if (list_ != UINT32_MAX) throw GiveUp{};  // a snapshot has one list
        push(new_skeleton({Skeleton::kList, {}, kUnset, kUnset, {}}));
        list_ = payload(stack_.back());
        return true;
      case 'a': {
        const Ref v = pop();
        top(Skeleton::kList, SIZE_MAX);
        append(v);
        compact();
        return true;
      }
      case 'e': {
        const std::size_t m = pop_mark();
        top(Skeleton::kList, m);
        for (std::size_t j = m; j < stack_.size(); ++j) append(stack_[j]);
        stack_.resize(m);
        compact();
        return true;
      }
      case '}':
        push(new_skeleton({Skeleton::kDict, {}, kUnset, kUnset, {}}));
        return true;
      case 's': {
        const Ref v = pop();
        const Ref k = pop();
        set_item(top(Skeleton::kDict, SIZE_MAX), k, v);
        return true;
      }
      case 'u': {
        const std::size_t m = pop_mark();
        if ((stack_.size() - m) % 2) throw GiveUp{};
        Skeleton& d = top(Skeleton::kDict, m);
        for (std::size_t j = m; j < stack_.size(); j += 2) set_item(d, stack_[j], stack_[j + 1]);
        stack_.resize(m);
        return true;
      }
      default:
        return false;
    }
  }

  void step(unsigned char op) {
    if (containers(op) || common(op, memo_size_)) return;
    switch (op) {
      case 0x8C:
        return str(bytes(u8()));
      case 'X':
        return str(bytes(le(4)));
      case 0x8D:
        return str(bytes(le(8)));
      case 'c': {
        const std::string_view module = line();
        return global(module, line());
      }
      case 0x93: {
        const Ref name = pop();
        const Ref module = pop();
        if (kind(name) != kStr || kind(module) != kStr) throw GiveUp{};
        return global(text(module), text(name));
      }
      case 0x81: {  // NEWOBJ with no arguments
        const Ref args = pop();
        const Ref cls = pop();
        if (kind(cls) != kSkeleton || skeleton_[payload(cls)].type != Skeleton::kClass) throw GiveUp{};
        if (kind(args) != kFrames || frames_[payload(args)].count != 0) throw GiveUp{};
        return push(new_skeleton({Skeleton::kObject, {}, cls, kUnset, {}}));
      }
      case 'b': {
        const Ref state = pop();
        Skeleton& obj = top(Skeleton::kObject, SIZE_MAX);
        if (obj.state != kUnset || kind(state) != kSkeleton || skeleton_[payload(state)].type != Skeleton::kDict)
          throw GiveUp{};
        obj.state = state;
        return;
      }
      default:
        throw GiveUp{};
    }
  }

  // The state dict of an object of tracemalloc's class `name`.
  const Skeleton& state_of(Ref r, std::string_view name) const {
    if (r == kUnset || kind(r) != kSkeleton) throw GiveUp{};
    const Skeleton& obj = skeleton_[payload(r)];
    if (obj.type != Skeleton::kObject || skeleton_[payload(obj.cls)].name != name || obj.state == kUnset)
      throw GiveUp{};
    return skeleton_[payload(obj.state)];
  }
  // The value of the first `key` of a dict, or kUnset.
  Ref member(const Skeleton& dict, std::string_view key) const {
    for (std::size_t k = 0; k + 1 < dict.items.size(); k += 2)
      if (kind(dict.items[k]) == kStr && text(dict.items[k]) == key) return dict.items[k + 1];
    return kUnset;
  }

  static constexpr std::size_t kSkeletons = 32;
  static constexpr std::size_t kMemoCap = std::size_t{64} << 20;  // entries: 256 MB

  PassedPages pages_;
  SnapshotBuilder out_;
  std::vector<Ref> items_;
  std::optional<pickle::TakenMemo> taken_;
  std::vector<Ref> memo_;           // kUnset: not set
  std::vector<std::uint64_t> set_;  // with taken_: bit i, index i is set
  std::uint64_t memo_sets_ = 0, memo_size_ = 0;
  std::vector<std::int64_t> ints_;
  std::vector<std::pair<std::size_t, std::size_t>> strs_;  // in text_
  std::string text_;
  std::vector<Frames> frames_;
  std::vector<FuncId> arena_;    // the frames of the tracebacks no trace has used yet
  std::size_t unused_ = 0;       // tracebacks of frames no trace has used yet
  std::vector<Trace> traces_;    // the traces since the last append
  std::size_t traces_base_ = 0;  // the index of traces_[0]
  std::vector<Skeleton> skeleton_;
  std::uint32_t list_ = UINT32_MAX;
  std::size_t traces_in_list_ = 0;
  FuncId processed_ = 0;  // the functions the traces added so far use
  std::vector<FuncId> frames_buf_;
  std::vector<StringId> file_name_;  // of each str a frame names (kNoString: none yet)
  // The scan on the other core (declared last: it ends before the rest goes).
  std::optional<pickle::TakenMemo> taken_found_;  // the scanner's, until use_taken()
  const InputFile& input_;
  const std::uint64_t switch_at_;
  bool scan_pending_ = false;  // taken_found_ is coming, or here to be used
  std::atomic<bool> scanned_{false}, stop_scan_{false};
  BesideThread scanner_;
};

}  // namespace

std::optional<Expected<Profile>> read_streaming(const InputFile& input, const formats::ReadOptions& options,
                                                Diagnostics& diag) {
  return read_streaming_switching(input, options, diag, Stream::kOnTheOtherCore);
}

std::optional<Expected<Profile>> read_streaming_switching(const InputFile& input, const formats::ReadOptions& options,
                                                          Diagnostics& diag, std::uint64_t switch_at) {
  try {
    return Stream(input, options, switch_at).run(diag);
  } catch (const GiveUp&) {
    return std::nullopt;
  }
}

}  // namespace graphgen::tracemalloc
