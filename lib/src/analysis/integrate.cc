#include "graphgen/analysis/integrate.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

#include "graphgen/thread.h"

namespace graphgen {

Cycles find_cycles(const Profile& p, const Adjacency& adj) {
  const std::size_t n = p.functions.size();
  constexpr std::uint32_t kUnvisited = UINT32_MAX;
  std::vector<std::uint32_t> order(n, kUnvisited), low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<FuncId> stack;
  struct Frame {
    FuncId f;
    std::uint32_t next;  // position in f's out-calls
  };
  std::vector<Frame> frames;
  std::vector<FuncId> scc;
  std::uint32_t counter = 0;
  Cycles result;
  result.cycle_of.assign(n, Cycles::kNone);
  result.scc_order.reserve(n);

  for (FuncId start = 0; start < n; ++start) {
    if (order[start] != kUnvisited) continue;
    frames.push_back({start, adj.out_begin[start]});
    order[start] = low[start] = counter++;
    stack.push_back(start);
    on_stack[start] = true;
    while (!frames.empty()) {
      Frame& fr = frames.back();
      FuncId f = fr.f;
      if (fr.next < adj.out_begin[f + 1]) {
        FuncId callee = p.calls[adj.out_calls[fr.next++]].callee;
        if (order[callee] == kUnvisited) {
          order[callee] = low[callee] = counter++;
          stack.push_back(callee);
          on_stack[callee] = true;
          frames.push_back({callee, adj.out_begin[callee]});
        } else if (on_stack[callee]) {
          low[f] = std::min(low[f], order[callee]);
        }
        continue;
      }
      frames.pop_back();
      if (!frames.empty()) {
        FuncId parent = frames.back().f;
        low[parent] = std::min(low[parent], low[f]);
      }
      if (low[f] != order[f]) continue;
      if (stack.back() == f) {  // a function alone
        stack.pop_back();
        on_stack[f] = false;
        result.scc_order.push_back(f);
        continue;
      }
      scc.clear();
      FuncId m;
      do {
        m = stack.back();
        stack.pop_back();
        on_stack[m] = false;
        scc.push_back(m);
      } while (m != f);
      std::sort(scc.begin(), scc.end());
      auto index = static_cast<std::uint32_t>(result.members.size());
      for (FuncId member : scc) result.cycle_of[member] = index;
      result.members.push_back(scc);
      result.scc_order.push_back(scc.front());
    }
  }
  return result;
}

std::vector<double> call_ratios(const Profile& p, const Cycles& cycles, std::vector<double> weight) {
  std::vector<double> function_in(p.functions.size(), 0.0);
  std::vector<double> cycle_in(cycles.members.size(), 0.0);
  for (CallId c = 0; c < p.calls.size(); ++c) {
    const Call& call = p.calls[c];
    if (call.caller == call.callee) continue;
    function_in[call.callee] += weight[c];
    std::uint32_t cc = cycles.cycle_of[call.callee];
    if (cc != Cycles::kNone && cc != cycles.cycle_of[call.caller]) cycle_in[cc] += weight[c];
  }
  // Each call's ratio where its weight was (read only there).
  for (CallId c = 0; c < p.calls.size(); ++c) {
    const Call& call = p.calls[c];
    if (call.caller == call.callee) {
      weight[c] = -1.0;
      continue;
    }
    std::uint32_t cc = cycles.cycle_of[call.callee];
    double total =
        (cc != Cycles::kNone && cc != cycles.cycle_of[call.caller]) ? cycle_in[cc] : function_in[call.callee];
    weight[c] = ratio(weight[c], total);
  }
  return weight;
}

std::vector<double> call_ratios(const Profile& p, const Cycles& cycles, std::size_t event) {
  std::vector<double> weight(p.calls.size());
  for (CallId c = 0; c < p.calls.size(); ++c) weight[c] = p.value(event, p.inclusive(c, event));
  return call_ratios(p, cycles, std::move(weight));
}

namespace {

CycleProgress g_cycle_progress;
std::chrono::milliseconds g_cycle_progress_after{2000};

// Tells g_cycle_progress how far a cycle's walks are: called by the thread
// that sums them after each walk, it looks at the clock only while a
// function is set, and reports from the delay on, every half second.
class WalkProgress {
 public:
  WalkProgress(std::size_t entries, std::size_t members) : entries_(entries), members_(members) {
    if (!g_cycle_progress) return;
    start_ = std::chrono::steady_clock::now();
    next_ = start_ + g_cycle_progress_after;
  }
  WalkProgress(const WalkProgress&) = delete;
  WalkProgress& operator=(const WalkProgress&) = delete;
  ~WalkProgress() {
    if (reported_) g_cycle_progress(-1, entries_, entries_, members_);
  }
  void walked(std::size_t done) {
    if (!g_cycle_progress) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_) return;
    reported_ = true;
    next_ = now + std::chrono::milliseconds(500);
    g_cycle_progress(std::chrono::duration<double>(now - start_).count(), done, entries_, members_);
  }

 private:
  std::size_t entries_, members_;
  std::chrono::steady_clock::time_point start_, next_;
  bool reported_ = false;
};

}  // namespace

void set_cycle_progress(CycleProgress f, std::chrono::milliseconds after) {
  g_cycle_progress = std::move(f);
  g_cycle_progress_after = after;
}

namespace {

// The cycles of the profile's calls, the adjacency they were found with
// freed on return.
Cycles cycles_of(const Profile& p) {
  const Adjacency adj = Adjacency::build(p);
  return find_cycles(p, adj);
}

// Nodes and edges of a graph with the measures every derived-total graph
// shares: self ratio, self samples, call counts. `owner`, when given, is
// `p` itself, whose calls nothing reads after the graph: the edges are made
// first and the calls given back before the nodes (an importtime log of
// 208 000 modules: 6.4 MiB of calls and their costs beside 21 MiB of graph).
// `ratios`, when given (a call's share of its callee, negative: none), go
// into the edges' total_ratio for the caller to scale, and are freed before
// the nodes are made.
CallGraph base_graph(const Profile& p, std::size_t event, double& self_sum, Profile* owner = nullptr,
                     std::vector<double>* ratios = nullptr) {
  CallGraph g;
  const std::size_t n = p.functions.size();
  g.edges.reserve(p.calls.size());
  prefer_huge_pages(g.edges, p.calls.size());
  for (CallId c = 0; c < p.calls.size(); ++c) {
    const Call& call = p.calls[c];
    GraphEdge e;
    e.caller = call.caller;
    e.callee = call.callee;
    e.calls = call.count;
    if (ratios && (*ratios)[c] >= 0) e.total_ratio = (*ratios)[c];
    g.edges.push_back(e);
  }
  if (ratios) *ratios = std::vector<double>();
  if (owner) release_calls(*owner);
  g.nodes.reserve(n);
  prefer_huge_pages(g.nodes, n);
  g.nodes.resize(n);
  Cost sum = p.cost_of(event, 0.0);
  if (p.listed.empty()) {
    for (FuncId f = 0; f < n; ++f) sum = p.add(event, sum, p.self(f, event));
  } else {
    for (FuncId f : p.listed) sum = p.add(event, sum, p.self(f, event));
  }
  self_sum = p.value(event, sum);
  g.whole = shown_value(p.events[event], self_sum);
  for (FuncId f = 0; f < n; ++f) {
    GraphNode& node = g.nodes[f];
    double self = p.value(event, p.self(f, event));
    node.self_ratio = ratio(self, self_sum);
    // gprof2dot prints samples with %u, which truncates fractional ones.
    node.samples = p.events[event].floating
                       ? (std::isfinite(self) && std::fabs(self) < 9e18 ? static_cast<std::int64_t>(self) : 0)
                       : p.self(f, event);
    node.has_samples = true;
    node.called = p.functions[f].calls;
  }
  return g;
}

// gprof2dot's _integrate_function and _integrate_cycle over the SCCs in
// reverse topological order, without recursion: each function's total is
// its self plus its calls' shares of their callees' totals; a cycle's
// members get theirs from each entry point's breadth-first walk.
class RatioIntegration {
 public:
  // `long_cycle`: told of each cycle whose walks take more than
  // `long_cycle_above` steps, before they start.
  using LongCycle = std::function<void(std::size_t members, std::size_t calls, std::size_t entries)>;
  RatioIntegration(const Profile& p, const Adjacency& adj, const Cycles& cycles, const std::vector<double>& ratios,
                   std::vector<double> self, std::size_t two_cores_above, double long_cycle_above, LongCycle long_cycle)
      : total(p.functions.size(), 0.0),
        call_total(p.calls.size(), 0.0),
        has_call_total(p.calls.size(), false),
        p_(p),
        adj_(adj),
        cycles_(cycles),
        ratios_(ratios),
        self_(std::move(self)),
        cycle_total_(cycles.members.size(), 0.0),
        local_(p.functions.size(), 0),
        two_cores_above_(two_cores_above),
        long_cycle_above_(long_cycle_above),
        long_cycle_(std::move(long_cycle)) {}

  void run() {
    for (FuncId f : cycles_.scc_order) {
      if (cycles_.cycle_of[f] == Cycles::kNone)
        function(f);
      else
        cycle(cycles_.members[cycles_.cycle_of[f]]);
    }
  }

  const std::vector<double>& self() const { return self_; }
  std::vector<double> total, call_total;
  std::vector<bool> has_call_total;

 private:
  // A cycle's compact copy: members numbered 0..m-1, their intra-cycle
  // calls (callee, ratio, call) in call order, and the summed totals of
  // the calls that leave the cycle. Each entry point walks only this.
  struct Compact {
    std::vector<std::uint32_t> edge_begin, edge_callee;
    std::vector<double> edge_ratio;
    std::vector<CallId> edge_call;
    std::vector<double> leaving;
    // Summed over the walks (partial: the walk being summed).
    std::vector<double> partial, member_total, edge_total;
    std::vector<std::uint8_t> edge_has_total;
  };

  // One entry point's breadth-first walk: members by rank, each member's
  // forward calls (rank k -> k+1, in call order) and the summed ratio of
  // the forward calls into each member.
  struct Walk {
    std::uint32_t start = 0;
    double entry_ratio = 0.0;
    std::vector<std::uint32_t> rank, by_rank, forward, forward_begin;
    std::vector<double> forward_in;
    void reserve(std::size_t members, std::size_t edges) {
      rank.resize(members);
      forward_in.resize(members);
      by_rank.reserve(members);
      forward_begin.reserve(members + 1);
      forward.resize(edges);
    }
  };

  // What a call into `f` integrates: a cycle member stands for its whole
  // cycle, as gprof2dot's _integrate_function returns the cycle's total
  // (and the ratios of calls entering a cycle are relative to the cycle).
  double integrated(FuncId f) const {
    std::uint32_t c = cycles_.cycle_of[f];
    return c == Cycles::kNone ? total[f] : cycle_total_[c];
  }

  bool in_cycle(FuncId f, std::uint32_t cycle) const { return cycles_.cycle_of[f] == cycle; }

  // The call `c`'s share of its callee, which is done (reverse topological
  // order).
  double leave(CallId c) {
    call_total[c] = ratios_[c] * integrated(p_.calls[c].callee);
    has_call_total[c] = true;
    return call_total[c];
  }

  void function(FuncId f) {
    double t = self_[f];
    for (std::uint32_t i = adj_.out_begin[f]; i < adj_.out_begin[f + 1]; ++i) {
      CallId c = adj_.out_calls[i];
      if (p_.calls[c].callee == f) continue;
      t += leave(c);
    }
    total[f] = t;
  }

  void cycle(const std::vector<FuncId>& scc) {
    const std::uint32_t cycle = cycles_.cycle_of[scc.front()];
    // The cycle's total: its members' self plus the calls leaving it.
    double whole = 0.0;
    for (FuncId m : scc) {
      double sub = self_[m];
      for (std::uint32_t i = adj_.out_begin[m]; i < adj_.out_begin[m + 1]; ++i) {
        CallId c = adj_.out_calls[i];
        if (in_cycle(p_.calls[c].callee, cycle)) continue;
        sub += leave(c);
      }
      whole += sub;
    }
    cycle_total_[cycle] = whole;
    for (std::uint32_t k = 0; k < scc.size(); ++k) local_[scc[k]] = k;
    std::vector<std::pair<FuncId, double>> entries = entry_points(scc, cycle);
    for (FuncId member : scc) total[member] = 0.0;
    if (entries.empty()) return;  // no outside caller: every member stays at 0
    Compact c = compact(scc, cycle);
    if (scc.size() > 1 && c.edge_callee.size() == scc.size())
      ring(scc, c, entries);
    else
      walks(scc, c, entries);
    for (std::uint32_t k = 0; k < scc.size(); ++k) total[scc[k]] = c.member_total[k];
    for (std::size_t e = 0; e < c.edge_callee.size(); ++e) {
      if (!c.edge_has_total[e]) continue;
      call_total[c.edge_call[e]] = c.edge_total[e];
      has_call_total[c.edge_call[e]] = true;
    }
  }

  // Members called from outside, with the summed ratio of those calls, in
  // gprof2dot's order (by caller id, then call order); one entry per
  // member, found by its place in the cycle (no search).
  std::vector<std::pair<FuncId, double>> entry_points(const std::vector<FuncId>& scc, std::uint32_t cycle) const {
    std::vector<std::pair<FuncId, CallId>> entries_in;
    for (FuncId m : scc)
      for (std::uint32_t i = adj_.in_begin[m]; i < adj_.in_begin[m + 1]; ++i) {
        CallId c = adj_.in_calls[i];
        if (!in_cycle(p_.calls[c].caller, cycle)) entries_in.emplace_back(p_.calls[c].caller, c);
      }
    std::sort(entries_in.begin(), entries_in.end());
    std::vector<std::pair<FuncId, double>> entries;
    std::vector<std::uint32_t> entry_of(scc.size(), UINT32_MAX);
    for (const auto& [caller, c] : entries_in) {
      FuncId callee = p_.calls[c].callee;
      std::uint32_t& e = entry_of[local_[callee]];
      if (e == UINT32_MAX) {
        e = static_cast<std::uint32_t>(entries.size());
        entries.emplace_back(callee, ratios_[c]);
      } else {
        entries[e].second += ratios_[c];
      }
    }
    return entries;
  }

  Compact compact(const std::vector<FuncId>& scc, std::uint32_t cycle) const {
    const std::size_t m = scc.size();
    Compact c;
    c.edge_begin.assign(m + 1, 0);
    c.leaving.assign(m, 0.0);
    for (std::uint32_t k = 0; k < m; ++k) {
      FuncId f = scc[k];
      for (std::uint32_t i = adj_.out_begin[f]; i < adj_.out_begin[f + 1]; ++i) {
        CallId call = adj_.out_calls[i];
        FuncId callee = p_.calls[call].callee;
        if (callee == f) continue;
        if (!in_cycle(callee, cycle)) {
          c.leaving[k] += call_total[call];
          continue;
        }
        c.edge_callee.push_back(local_[callee]);
        c.edge_ratio.push_back(ratios_[call]);
        c.edge_call.push_back(call);
      }
      c.edge_begin[k + 1] = static_cast<std::uint32_t>(c.edge_callee.size());
    }
    c.partial.resize(m);
    c.member_total.assign(m, 0.0);
    c.edge_total.assign(c.edge_callee.size(), 0.0);
    c.edge_has_total.assign(c.edge_callee.size(), 0);
    return c;
  }

  // Every entry point's walk, summed in entry order. Ranking a walk reads
  // only the cycle's calls, so on a big cycle a second thread ranks the
  // next walks while this one sums them: the sums are the same operations
  // in the same order as on one core.
  void walks(const std::vector<FuncId>& scc, Compact& c, const std::vector<std::pair<FuncId, double>>& entries) {
    const std::size_t m = scc.size(), edges = c.edge_callee.size();
    // (Steps: each walk visits the cycle's members and calls.)
    const double steps = static_cast<double>(entries.size()) * static_cast<double>(edges + m);
    if (long_cycle_ && steps > long_cycle_above_) long_cycle_(m, edges, entries.size());
    constexpr std::size_t kSlots = 4;
    const bool two =
        entries.size() > 1 && steps > static_cast<double>(two_cores_above_) && std::thread::hardware_concurrency() > 1;
    std::vector<Walk> slot(two ? kSlots : 1);
    for (Walk& w : slot) w.reserve(m, edges);
    auto prepare = [&](Walk& w, std::size_t i) {
      w.start = local_[entries[i].first];
      w.entry_ratio = entries[i].second;
      rank(c, w);
    };
    WalkProgress progress(entries.size(), m);
    auto one_core = [&] {
      for (std::size_t i = 0; i < entries.size(); ++i) {
        prepare(slot[0], i);
        sum(scc, c, slot[0]);
        progress.walked(i + 1);
      }
    };
    if (!two) {
      one_core();
      return;
    }
    std::mutex mutex;
    std::condition_variable changed;
    std::size_t ranked = 0, summed = 0;  // walks done by each side
    BesideThread ranker = BesideThread::try_start([&] {
      for (std::size_t i = 0; i < entries.size(); ++i) {
        {
          std::unique_lock lock(mutex);
          changed.wait(lock, [&] { return i - summed < kSlots; });
        }
        prepare(slot[i % kSlots], i);
        std::lock_guard lock(mutex);
        ranked = i + 1;
        changed.notify_all();
      }
    });
    if (!ranker.joinable()) {  // (no thread: the same walks on one core)
      one_core();
      return;
    }
    for (std::size_t i = 0; i < entries.size(); ++i) {
      {
        std::unique_lock lock(mutex);
        changed.wait(lock, [&] { return ranked > i; });
      }
      sum(scc, c, slot[i % kSlots]);
      {
        std::lock_guard lock(mutex);
        summed = i + 1;
        changed.notify_all();
      }
      progress.walked(i + 1);
    }
    ranker.join();
  }

  // Breadth-first ranks from the entry, and the ratios of forward calls
  // into each member summed on the way (when f is taken from the queue
  // every callee already has its final rank, so f's forward calls are
  // known then).
  static void rank(const Compact& c, Walk& w) {
    const std::size_t m = w.rank.size();
    std::fill(w.rank.begin(), w.rank.end(), UINT32_MAX);
    w.by_rank.clear();
    w.forward_begin.clear();
    w.rank[w.start] = 0;
    w.by_rank.push_back(w.start);
    std::uint32_t* forward = w.forward.data();
    std::uint32_t n = 0;
    std::size_t head = 0;
    // Until every member has its rank, a callee may be new.
    for (; head < w.by_rank.size() && w.by_rank.size() < m; ++head) {
      const std::uint32_t f = w.by_rank[head], next = w.rank[f] + 1;
      w.forward_begin.push_back(n);
      for (std::uint32_t e = c.edge_begin[f]; e < c.edge_begin[f + 1]; ++e) {
        const std::uint32_t callee = c.edge_callee[e];
        if (w.rank[callee] == UINT32_MAX) [[unlikely]] {
          w.rank[callee] = next;
          w.by_rank.push_back(callee);
        }
        // Whether a call is forward is a coin toss on a dense cycle:
        // kept without a branch.
        forward[n] = e;
        n += w.rank[callee] == next;
      }
    }
    // Then none is, and the members of the deepest rank have no forward
    // call (nothing is ranked below them): their calls are not looked at.
    const std::uint32_t deepest = w.rank[w.by_rank.back()];
    for (; head < w.by_rank.size(); ++head) {
      const std::uint32_t f = w.by_rank[head], next = w.rank[f] + 1;
      w.forward_begin.push_back(n);
      if (next > deepest) continue;
      for (std::uint32_t e = c.edge_begin[f]; e < c.edge_begin[f + 1]; ++e) {
        forward[n] = e;
        n += w.rank[c.edge_callee[e]] == next;
      }
    }
    w.forward_begin.push_back(n);
  }

  // Partials from the deepest rank up, a member's partial needing those of
  // its forward callees.
  void sum(const std::vector<FuncId>& scc, Compact& c, Walk& w) const {
    // The forward ratios into each member (here: the ranking thread has
    // more to do), in the order the walk met the calls.
    std::fill(w.forward_in.begin(), w.forward_in.end(), 0.0);
    for (std::uint32_t i = 0, n = w.forward_begin.back(); i < n; ++i)
      w.forward_in[c.edge_callee[w.forward[i]]] += c.edge_ratio[w.forward[i]];
    const double r = w.entry_ratio;
    for (std::size_t k = w.by_rank.size(); k-- > 0;) {
      const std::uint32_t f = w.by_rank[k];
      double part = r * self_[scc[f]] + r * c.leaving[f];
      for (std::uint32_t i = w.forward_begin[k]; i < w.forward_begin[k + 1]; ++i) {
        const std::uint32_t e = w.forward[i], callee = c.edge_callee[e];
        double share = ratio(c.edge_ratio[e], w.forward_in[callee]) * c.partial[callee];
        c.edge_total[e] += share;
        c.edge_has_total[e] = 1;
        part += share;
      }
      c.partial[f] = part;
      c.member_total[f] += part;
    }
  }

  // A cycle that is one ring (m members, m calls between them: each has
  // one caller and one callee inside it) gives every walk in closed form:
  // from entry e, every call but the one into e is forward, each forward
  // call carries its callee's whole partial (the only call into it, so its
  // ratio over the forward ones is 1), and member k's partial is r_e times
  // the self-and-leaving sum a over the arc k .. e-1. Summed over the
  // entries with prefix sums over the ring laid out twice: O(m), where one
  // walk per entry is O(entries x m) (20 000 entries took 4.4 s).
  void ring(const std::vector<FuncId>& scc, Compact& c, const std::vector<std::pair<FuncId, double>>& entries) {
    const std::size_t m = scc.size();
    std::vector<std::uint32_t> order(m), edge_of(m);  // ring position -> member, member -> its call
    for (std::uint32_t k = 0, f = 0; k < m; ++k) {
      order[k] = f;
      edge_of[f] = c.edge_begin[f];
      f = c.edge_callee[c.edge_begin[f]];
    }
    std::vector<double> r(m, 0.0);
    for (const auto& [entry, entry_ratio] : entries) r[local_[entry]] = entry_ratio;
    std::vector<bool> entry_at(m, false);
    for (const auto& [entry, entry_ratio] : entries) entry_at[local_[entry]] = true;
    // Prefixes over positions 0 .. 2m-1 (position i is order[i mod m]).
    std::vector<double> pa(2 * m + 1, 0.0), rr(2 * m + 1, 0.0), rp(2 * m + 1, 0.0);
    for (std::size_t i = 0; i < 2 * m; ++i) {
      std::uint32_t f = order[i % m];
      pa[i + 1] = pa[i] + (self_[scc[f]] + c.leaving[f]);
      rr[i + 1] = rr[i] + r[f];
      rp[i + 1] = rp[i] + r[f] * pa[i];
    }
    const double whole = pa[m];
    for (std::size_t k = 0; k < m; ++k) {
      std::uint32_t f = order[k];
      // The other entries' partials at k: sum over e in k+1 .. k+m-1 of
      // r_e (pa[e] - pa[k]).
      double others = (rp[k + m] - rp[k + 1]) - pa[k] * (rr[k + m] - rr[k + 1]);
      c.member_total[f] = r[f] * whole + others;
      // The call into f is forward in every walk but f's own.
      std::uint32_t into = edge_of[order[(k + m - 1) % m]];
      c.edge_total[into] = others;
      c.edge_has_total[into] = entries.size() > (entry_at[f] ? 1u : 0u);
    }
  }

  const Profile& p_;
  const Adjacency& adj_;
  const Cycles& cycles_;
  const std::vector<double>& ratios_;
  std::vector<double> self_;
  std::vector<double> cycle_total_;
  std::vector<std::uint32_t> local_;  // a cycle member's index in its cycle
  std::size_t two_cores_above_;
  double long_cycle_above_;
  LongCycle long_cycle_;
};

}  // namespace

// Call ratios of non-negative costs stay within [0, 1]: what is warned of
// is a cycle whose walks take long.
CallGraph graph_from_call_ratios(const Profile& p, std::size_t event, Diagnostics& diag, const RatioRule& rule) {
  double self_sum = 0;
  CallGraph g;
  const std::size_t n = p.functions.size();
  // The base graph is mostly fresh memory (a page fault each 4 KiB, 1 ms
  // for pydoc-sep3's 22 000 nodes and 31 000 edges): set up on the other
  // core while this one finds the cycles and ratios, which do not need it.
  std::exception_ptr failed;
  BesideThread base;
  if (n + p.calls.size() > rule.graph_two_cores_above) {
    base = BesideThread::start_or_run([&] {
      try {
        g = base_graph(p, event, self_sum);
      } catch (...) {
        failed = std::current_exception();
      }
    });
  } else {
    g = base_graph(p, event, self_sum);
  }
  Adjacency adj = Adjacency::build(p);
  Cycles cycles = find_cycles(p, adj);
  std::vector<double> ratios;
  if (rule.split == RatioRule::Split::kCallCount) {
    std::vector<double> counts(p.calls.size(), 0.0);
    for (CallId c = 0; c < p.calls.size(); ++c)
      if (p.calls[c].count != kUnknownCount) counts[c] = static_cast<double>(p.calls[c].count);
    ratios = call_ratios(p, cycles, std::move(counts));
  } else {
    ratios = call_ratios(p, cycles, event);
  }
  if (base.joinable()) base.join();
  if (failed) std::rethrow_exception(failed);
  // What is integrated: shares of the whole, or the event's values.
  std::vector<double> self(n);
  for (FuncId f = 0; f < n; ++f) self[f] = rule.in_values ? p.value(event, p.self(f, event)) : *g.nodes[f].self_ratio;
  // gprof2dot's walk of a cycle from each of its entry points is the
  // exact rule and costs entries x calls: a huge cycle (an interpreter's
  // functions calling each other) takes minutes, said before it starts.
  auto long_cycle = [&](std::size_t members, std::size_t calls, std::size_t entries) {
    diag.warn(fmt::format(
        "the call graph has a cycle of {} functions and {} calls entered at {} of them: gprof2dot's totals (--total "
        "callratios) walk it once from each, which takes a while{}",
        members, calls, entries,
        p.keeps_stack_totals ? "; --total callstacks takes the totals from the sample stacks at once" : ""));
  };
  RatioIntegration in(p, adj, cycles, ratios, std::move(self), rule.two_cores_above, rule.long_cycle_above, long_cycle);
  in.run();

  if (rule.in_values) {
    // gprof2dot: TOTAL_TIME integrated, then divided by the sum of self
    // times (summed again in the same order).
    const Event& ev = p.events[event];
    for (FuncId f = 0; f < n; ++f) {
      g.nodes[f].self_time = shown_value(ev, in.self()[f]);
      g.nodes[f].total_time = shown_value(ev, in.total[f]);
      g.nodes[f].total_ratio = ratio(in.total[f], self_sum);
    }
    for (CallId c = 0; c < p.calls.size(); ++c)
      if (in.has_call_total[c]) g.edges[c].total_ratio = ratio(in.call_total[c], self_sum);
  } else {
    for (FuncId f = 0; f < n; ++f) g.nodes[f].total_ratio = in.total[f];
    for (CallId c = 0; c < p.calls.size(); ++c)
      if (in.has_call_total[c]) g.edges[c].total_ratio = in.call_total[c];
  }
  sort_edges(g);
  return g;
}

CallGraph graph_from_reported_shares(const Profile& p, std::size_t event, Diagnostics& diag) {
  if (p.reported_share.size() != p.functions.size()) return graph_from_call_ratios(p, event, diag);
  // The ratios before the graph, the adjacency and cycles gone (as
  // graph_from_call_stacks).
  std::vector<double> ratios;
  {
    const Cycles cycles = cycles_of(p);
    std::vector<double> weight(p.calls.size());
    for (CallId c = 0; c < p.calls.size(); ++c) weight[c] = p.reported_share[p.calls[c].caller];
    ratios = call_ratios(p, cycles, std::move(weight));
  }
  double self_sum = 0;
  CallGraph g = base_graph(p, event, self_sum);
  const Event& ev = p.events[event];
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    g.nodes[f].self_time = event_value(ev, p.self(f, event));
    g.nodes[f].total_ratio = p.reported_share[f];
  }
  for (CallId c = 0; c < p.calls.size(); ++c) {
    const Call& call = p.calls[c];
    g.edges[c].total_ratio =
        call.caller == call.callee ? p.reported_share[call.caller] : ratios[c] * p.reported_share[call.callee];
  }
  sort_edges(g);
  return g;
}

CallGraph graph_from_call_stacks(const Profile& p, std::size_t event, Diagnostics& /*diag*/, Profile* releasable) {
  // The ratios first, the adjacency and cycles gone before the graph is
  // made: they were a sixth of an importtime log's peak beside it.
  std::vector<double> ratios;
  {
    const Cycles cycles = cycles_of(p);
    ratios = call_ratios(p, cycles, event);
  }
  double self_sum = 0;
  // (The edges hold the ratios, gone from `ratios`, before the nodes are made.)
  CallGraph g = base_graph(p, event, self_sum, releasable, &ratios);
  for (FuncId f = 0; f < p.functions.size(); ++f) {
    double stacks = p.stack_total.empty() ? 0.0 : p.value(event, p.stack_inclusive(f, event));
    g.nodes[f].total_ratio = ratio(stacks, self_sum);
  }
  for (GraphEdge& e : g.edges)
    if (e.total_ratio) e.total_ratio = *e.total_ratio * *g.nodes[e.callee].total_ratio;
  sort_edges(g);
  return g;
}

}  // namespace graphgen
