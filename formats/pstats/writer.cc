#include "writer.h"

#include <algorithm>
#include <cstring>

namespace graphgen::pstats {

namespace {

class Encoder {
 public:
  std::string out;

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

  void number(const Number& n) {
    if (n.is_int)
      integer(n.i);
    else
      real(n.f);
  }

  void text(std::string_view s) {
    out += 'u';
    i32(static_cast<std::int32_t>(s.size()));
    out += s;
  }

  void key(const Table& t, std::uint32_t k) {
    const Key& key = t.keys[k];
    out += '(';
    i32(3);
    text(t.str(key.file));
    integer(key.line);
    text(t.str(key.name));
  }
};

}  // namespace

std::string write_table(const Table& table) {
  Encoder e;
  e.out.reserve(table.entries.size() * 160);
  e.out += '{';
  for (const Entry& entry : table.entries) {
    e.key(table, entry.key);
    e.out += '(';
    e.i32(5);
    e.number(entry.cc);
    e.number(entry.nc);
    e.number(entry.tt);
    e.number(entry.ct);
    e.out += '{';
    for (const Caller& c : entry.callers) {
      e.key(table, c.key);
      if (c.is_int) {
        e.number(table.numbers[c.begin]);
      } else {
        e.out += '(';
        e.i32(static_cast<std::int32_t>(c.count));
        for (std::uint32_t i = 0; i < c.count; ++i) e.number(table.numbers[c.begin + i]);
      }
    }
    e.out += '0';
  }
  e.out += '0';
  return std::move(e.out);
}

namespace {

// Adds an entry, summing it into an existing one of the same key (two
// functions of different objects can share file, line and name).
void add_entry(Table& t, Entry e) {
  std::int32_t& slot = t.entry_of_key[e.key];
  if (slot < 0) {
    slot = static_cast<std::int32_t>(t.entries.size());
    t.entries.push_back(std::move(e));
    return;
  }
  Entry& d = t.entries[static_cast<std::size_t>(slot)];
  d.cc = d.cc + e.cc;
  d.nc = d.nc + e.nc;
  d.tt = d.tt + e.tt;
  d.ct = d.ct + e.ct;
  for (const Caller& c : e.callers) {
    auto it = std::find_if(d.callers.begin(), d.callers.end(), [&](const Caller& x) { return x.key == c.key; });
    if (it == d.callers.end()) {
      d.callers.push_back(c);
      continue;
    }
    std::uint32_t begin = static_cast<std::uint32_t>(t.numbers.size());
    for (std::uint32_t i = 0; i < 4; ++i) t.numbers.push_back(t.numbers[it->begin + i] + t.numbers[c.begin + i]);
    it->begin = begin;
  }
}

}  // namespace

Table from_profile(const Profile& p, std::size_t event) {
  Table t;
  const Event& ev = p.events[event];
  auto value = [&](Cost c) { return event_value(ev, c); };
  const std::size_t n = p.functions.size();
  std::vector<std::uint32_t> key_of(n);
  for (FuncId f = 0; f < n; ++f) {
    const Function& fn = p.functions[f];
    Key k;
    std::string_view file = fn.file != kNoString ? p.str(fn.file) : fn.object != kNoString ? p.str(fn.object) : "~";
    k.file = t.strings.intern(file);
    k.line = fn.line;
    k.name = t.strings.intern(p.str(fn.name).empty() ? p.str(fn.label) : p.str(fn.name));
    key_of[f] = t.intern_key(k);
  }
  // Inclusive cost per function, and incoming inclusive for sharing tt.
  std::vector<Cost> inclusive(n, 0), incoming(n, 0);
  for (FuncId f = 0; f < n; ++f)
    inclusive[f] = p.has_total_cost() ? p.total(f, event)
                   : p.keeps_stack_totals ? p.stack_inclusive(f, event)
                                          : p.self(f, event);
  for (CallId c = 0; c < p.calls.size(); ++c) {
    const Call& call = p.calls[c];
    if (!p.has_total_cost() && !p.keeps_stack_totals && call.caller != call.callee)
      inclusive[call.caller] = saturating_add(inclusive[call.caller], p.inclusive(c, event));
    incoming[call.callee] = saturating_add(incoming[call.callee], p.inclusive(c, event));
  }
  std::vector<std::vector<CallId>> callers(n);
  for (CallId c = 0; c < p.calls.size(); ++c) callers[p.calls[c].callee].push_back(c);

  for (FuncId f = 0; f < n; ++f) {
    const Function& fn = p.functions[f];
    Entry e;
    e.key = key_of[f];
    std::int64_t calls = fn.calls == kUnknownCount ? 0 : fn.calls;
    std::int64_t primitive = fn.primitive_calls == kUnknownCount ? calls : fn.primitive_calls;
    e.cc = Number::of_int(primitive);
    e.nc = Number::of_int(calls);
    e.tt = Number::of_float(value(p.self(f, event)));
    e.ct = Number::of_float(value(inclusive[f]));
    for (CallId c : callers[f]) {
      const Call& call = p.calls[c];
      Caller entry;
      entry.key = key_of[call.caller];
      entry.begin = static_cast<std::uint32_t>(t.numbers.size());
      entry.count = 4;
      std::int64_t count = call.count == kUnknownCount ? 0 : call.count;
      std::int64_t prim = call.primitive_count == kUnknownCount ? count : call.primitive_count;
      double share = incoming[f] > 0 ? static_cast<double>(p.inclusive(c, event)) / static_cast<double>(incoming[f]) : 0.0;
      t.numbers.push_back(Number::of_int(count));
      t.numbers.push_back(Number::of_int(prim));
      t.numbers.push_back(Number::of_float(value(p.self(f, event)) * share));
      t.numbers.push_back(Number::of_float(value(p.inclusive(c, event))));
      e.callers.push_back(entry);
    }
    add_entry(t, std::move(e));
  }
  return t;
}

}  // namespace graphgen::pstats
