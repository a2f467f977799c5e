#include "writer.h"

#include <algorithm>
#include <cstring>

#include "common/python_text.h"
#include "graphgen/flat_index.h"
#include "marshal.h"

namespace graphgen::pstats {

namespace {

class Encoder {
 public:
  std::string out;
  std::size_t max_bytes = 0;
  bool over = false;  // a write past max_bytes was refused

  void i32(std::int32_t v) {
    char b[4];
    auto u = static_cast<std::uint32_t>(v);
    for (int k = 0; k < 4; ++k) b[k] = static_cast<char>((u >> (8 * k)) & 0xFF);
    out.append(b, 4);
  }

  void integer(std::int64_t v) {
    if (v >= INT32_MIN && v <= INT32_MAX) {
      out += 'i';
      i32(static_cast<std::int32_t>(v));
      return;
    }
    // 'l': sign and count, then 15-bit digits, least significant first.
    std::uint64_t mag = v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v);
    std::string digits;
    std::int32_t n = 0;
    while (mag > 0) {
      auto d = static_cast<std::uint16_t>(mag & 0x7FFF);
      digits += static_cast<char>(d & 0xFF);
      digits += static_cast<char>(d >> 8);
      mag >>= 15;
      ++n;
    }
    out += 'l';
    i32(v < 0 ? -n : n);
    out += digits;
  }

  void real(double v) {
    out += 'g';
    char b[8];
    std::memcpy(b, &v, 8);
    out.append(b, 8);
  }

  void text(std::string_view s) {
    if (max_bytes && out.size() + s.size() > max_bytes) {
      over = true;
      return;
    }
    out += 'u';
    if (formats::valid_utf8_surrogatepass(s)) {
      i32(static_cast<std::int32_t>(s.size()));
      out += s;
      return;
    }
    std::string escaped = surrogate_escape(s);
    i32(static_cast<std::int32_t>(escaped.size()));
    out += escaped;
  }

  // Valid UTF-8 sequences stay; every other byte b becomes U+DC00+b.
  static std::string surrogate_escape(std::string_view s) {
    std::string r;
    std::size_t i = 0;
    while (i < s.size()) {
      std::size_t len = 1;
      auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x80) {
        len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        if (len == 0 || i + len > s.size() || !formats::valid_utf8_surrogatepass(s.substr(i, len))) {
          unsigned cp = 0xDC00 + c;
          r += static_cast<char>(0xE0 | (cp >> 12));
          r += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
          r += static_cast<char>(0x80 | (cp & 0x3F));
          ++i;
          continue;
        }
      }
      r.append(s.substr(i, len));
      i += len;
    }
    return r;
  }
};

// One pstats key and what is written under it.
struct Entry {
  StringId file = kNoString, name = kNoString, code = kNoString;
  std::int64_t line = 0;
  std::int64_t cc = 0, nc = 0;
  double tt = 0, ct = 0;
  std::vector<std::uint32_t> callers;  // into Writer::callers_, in order
};

struct CallerEntry {
  std::uint32_t key = 0;  // into entries/keys
  bool is_int = false;
  std::int64_t nc = 0, cc = 0;
  double tt = 0, ct = 0;
};

class Writer {
 public:
  Writer(const Profile& p, std::size_t event, std::size_t max_bytes) : p_(p), event_(event), max_bytes_(max_bytes) {}

  Expected<std::string> run() {
    const std::size_t n = p_.functions.size();
    const Event& ev = p_.events[event_];
    key_of_.resize(n);
    for (FuncId f = 0; f < n; ++f) key_of_[f] = key(f);

    // Inclusive cost per function, and incoming inclusive for sharing tt.
    std::vector<double> inclusive(n, 0.0), incoming(n, 0.0);
    for (FuncId f = 0; f < n; ++f)
      inclusive[f] = p_.has_total_cost()     ? value(p_.total(f, event_))
                     : p_.keeps_stack_totals ? value(p_.stack_inclusive(f, event_))
                                             : value(p_.self(f, event_));
    for (CallId c = 0; c < p_.calls.size(); ++c) {
      const Call& call = p_.calls[c];
      double v = shown_value(ev, p_.call_value(c, event_));
      if (!p_.has_total_cost() && !p_.keeps_stack_totals && call.caller != call.callee) inclusive[call.caller] += v;
      incoming[call.callee] += v;
    }
    adj_ = Adjacency::build(p_);
    inclusive_ = std::move(inclusive);
    incoming_ = std::move(incoming);
    // Every function its own key (pstats files, most profiles): nothing to
    // add up, so each entry is written from the profile as it comes, with
    // no table of entries and callers beside the output (the 100k-function
    // file's pstats output held 21 MB of them).
    if (keys_.size() == n && listed_once()) return encode_direct();
    auto write_entry = [&](FuncId f) {
      Entry e = numbers_of(f);
      for (std::uint32_t i = adj_.in_begin[f]; i < adj_.in_begin[f + 1]; ++i) {
        e.callers.push_back(static_cast<std::uint32_t>(callers_.size()));
        callers_.push_back(caller_of(adj_.in_calls[i], f, e.tt));
      }
      add(key_of_[f], std::move(e));
      return true;
    };
    each_written(write_entry);
    return encode();
  }

 private:
  double value(Cost c) const { return event_value(p_.events[event_], c); }

  // `write(f)` for each function written, in order: the listed ones (as
  // pstats lists its entries), else all; false when one says stop.
  template <class Write>
  bool each_written(Write&& write) const {
    if (p_.listed.empty()) {
      for (FuncId f = 0; f < p_.functions.size(); ++f)
        if (!write(f)) return false;
      return true;
    }
    for (FuncId f : p_.listed)
      if (!write(f)) return false;
    return true;
  }

  // No function listed twice (which would add to its own entry).
  bool listed_once() const {
    std::vector<bool> seen(p_.functions.size(), false);
    for (FuncId f : p_.listed) {
      if (seen[f]) return false;
      seen[f] = true;
    }
    return true;
  }

  // A function's entry without its callers: its counts and times.
  Entry numbers_of(FuncId f) const {
    const Function& fn = p_.functions[f];
    Entry e;
    e.nc = fn.calls == kUnknownCount ? 0 : fn.calls;
    e.cc = fn.primitive_calls == kUnknownCount ? e.nc : fn.primitive_calls;
    e.tt = value(p_.self(f, event_));
    e.ct = inclusive_[f];
    return e;
  }

  // Call c into f (whose own time is `tt`) as f's caller entry.
  CallerEntry caller_of(CallId c, FuncId f, double tt) const {
    const Event& ev = p_.events[event_];
    const Call& call = p_.calls[c];
    CallerEntry ce;
    ce.key = key_of_[call.caller];
    ce.nc = call.count == kUnknownCount ? 0 : call.count;
    ce.is_int = p_.call_costs_from_counts && call.primitive_count == kUnknownCount;
    ce.cc = call.primitive_count == kUnknownCount ? ce.nc : call.primitive_count;
    double call_inclusive = shown_value(ev, p_.call_value(c, event_));
    if (p_.keeps_call_self) {
      ce.tt = value(p_.along(c, event_));
    } else {
      double share = incoming_[f] > 0 ? call_inclusive / incoming_[f] : 0.0;
      ce.tt = tt * share;
    }
    ce.ct = call_inclusive;
    return ce;
  }

  // pstats' key of a function; functions with equal keys share an entry.
  std::uint32_t key(FuncId f) {
    const Function& fn = p_.functions[f];
    Entry k;
    // Python profiles name their file even when it is empty ('' for the
    // pure-Python profiler's built-ins); other formats have none to give.
    k.file = fn.file != kNoString || p_.label_style == LabelStyle::kPython ? fn.file
             : fn.object != kNoString                                      ? fn.object
                                                                           : tilde();
    k.name = fn.name;
    k.line = fn.line;
    k.code = fn.code;
    return keys_.find_or_add(
        FlatIndex::mix(FlatIndex::mix(k.file, k.name, k.code), static_cast<std::uint64_t>(k.line)),
        [&](std::uint32_t i) {
          const Entry& e = entries_[i];
          return e.file == k.file && e.name == k.name && e.code == k.code && e.line == k.line;
        },
        [&] {
          entries_.push_back(k);
          written_.push_back(false);
          return static_cast<std::uint32_t>(entries_.size() - 1);
        });
  }

  StringId tilde() {
    if (tilde_ == kNoString) {
      // "~" may not be in the table; keep it beside the entries.
      tilde_ = UINT32_MAX;
    }
    return tilde_;
  }

  std::string_view text(StringId s) const { return s == UINT32_MAX ? std::string_view("~") : p_.str(s); }

  // Sums an entry into its key's (first place wins, as the keys' order).
  void add(std::uint32_t k, Entry e) {
    Entry& d = entries_[k];
    if (!written_[k]) {
      written_[k] = true;
      order_.push_back(k);
      d.cc = e.cc;
      d.nc = e.nc;
      d.tt = e.tt;
      d.ct = e.ct;
      d.callers = std::move(e.callers);
      return;
    }
    d.cc += e.cc;
    d.nc += e.nc;
    d.tt += e.tt;
    d.ct += e.ct;
    for (std::uint32_t c : e.callers) {
      auto same = std::find_if(d.callers.begin(), d.callers.end(),
                               [&](std::uint32_t x) { return callers_[x].key == callers_[c].key; });
      if (same == d.callers.end()) {
        d.callers.push_back(c);
        continue;
      }
      CallerEntry& t = callers_[*same];
      t.nc += callers_[c].nc;
      t.cc += callers_[c].cc;
      t.tt += callers_[c].tt;
      t.ct += callers_[c].ct;
    }
  }

  void write_key(Encoder& e, std::uint32_t k) {
    const Entry& key = entries_[k];
    e.out += '(';
    e.i32(3);
    e.text(text(key.file));
    e.integer(key.line);
    if (key.code != kNoString)
      e.out += p_.str(key.code);
    else
      e.text(p_.str(key.name));
  }

  // A tuple of `size` items starting with two counts and two times.
  static void counts_and_times(Encoder& e, std::int32_t size, std::int64_t a, std::int64_t b, double x, double y) {
    e.out += '(';
    e.i32(size);
    e.integer(a);
    e.integer(b);
    e.real(x);
    e.real(y);
  }

  // An entry's key and numbers, up to its callers' dict.
  void entry_head(Encoder& e, std::uint32_t k, const Entry& entry) {
    write_key(e, k);
    counts_and_times(e, 5, entry.cc, entry.nc, entry.tt, entry.ct);
    e.out += '{';
  }

  void caller(Encoder& e, const CallerEntry& ce) {
    write_key(e, ce.key);
    if (ce.is_int)
      e.integer(ce.nc);
    else
      counts_and_times(e, 4, ce.nc, ce.cc, ce.tt, ce.ct);
  }

  Expected<std::string> encode() {
    Encoder e;
    e.max_bytes = max_bytes_;
    e.out.reserve(output_reservation(max_bytes_, order_.size() * 160));
    e.out += '{';
    for (std::uint32_t k : order_) {
      if (e.over || (max_bytes_ && e.out.size() > max_bytes_)) return output_too_large("pstats", max_bytes_);
      const Entry& entry = entries_[k];
      entry_head(e, k, entry);
      for (std::uint32_t c : entry.callers) caller(e, callers_[c]);
      e.out += '0';
    }
    e.out += '0';
    if (e.over) return output_too_large("pstats", max_bytes_);
    return std::move(e.out);
  }

  // encode() for profiles whose functions have a key each: each entry in
  // the order written, from the profile.
  Expected<std::string> encode_direct() {
    Encoder e;
    e.max_bytes = max_bytes_;
    e.out.reserve(output_reservation(max_bytes_, p_.functions.size() * 160));
    e.out += '{';
    auto one = [&](FuncId f) {
      const Entry entry = numbers_of(f);
      entry_head(e, key_of_[f], entry);
      for (std::uint32_t i = adj_.in_begin[f]; i < adj_.in_begin[f + 1]; ++i)
        caller(e, caller_of(adj_.in_calls[i], f, entry.tt));
      e.out += '0';
      return !(e.over || (max_bytes_ && e.out.size() > max_bytes_));
    };
    if (!each_written(one)) return output_too_large("pstats", max_bytes_);
    e.out += '0';
    if (e.over) return output_too_large("pstats", max_bytes_);
    return std::move(e.out);
  }

  const Profile& p_;
  std::size_t event_;
  std::size_t max_bytes_;
  std::vector<std::uint32_t> key_of_;
  FlatIndex keys_;
  std::vector<Entry> entries_;
  std::vector<bool> written_;
  std::vector<std::uint32_t> order_;
  std::vector<CallerEntry> callers_;
  Adjacency adj_;
  std::vector<double> inclusive_, incoming_;  // per function: inclusive time, and of the calls into it
  StringId tilde_ = kNoString;
};

}  // namespace

Expected<std::string> write(const Profile& p, std::size_t event, std::size_t max_bytes) {
  return Writer(p, event, max_bytes).run();
}

}  // namespace graphgen::pstats
