// Exactly rounded sums of doubles: the total of a set of values is the
// double nearest their exact sum, whatever order or grouping they were
// added in (Shewchuk's non-overlapping partials, with the final rounding of
// Python's math.fsum). Merging uses it for floating costs (pstats seconds),
// so one process merging 1000 files in order and sixteen MPI processes
// merging shares of them in a tree give the same bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace graphgen {

class ExactSum {
 public:
  ExactSum() = default;
  explicit ExactSum(double x) { add(x); }

  /// Adds x exactly.
  void add(double x) {
    if (!std::isfinite(x)) {
      special_ += x;  // inf and nan do not round: IEEE addition says it all
      has_special_ = true;
      return;
    }
    std::size_t i = 0;
    for (double y : partials_) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      double hi = x + y;
      double lo = y - (hi - x);
      if (lo != 0.0) partials_[i++] = lo;
      x = hi;
    }
    partials_.resize(i);
    if (!std::isfinite(x)) {  // the running sum overflowed
      special_ += x;
      has_special_ = true;
      return;
    }
    partials_.push_back(x);
  }

  /// Adds another sum exactly (its partials, not its rounded value).
  void add(const ExactSum& other) {
    for (double p : other.partials_) add(p);
    if (other.has_special_) {
      special_ += other.special_;
      has_special_ = true;
    }
  }

  /// The double nearest the exact sum (ties to even).
  double value() const {
    if (has_special_) return special_;
    std::size_t n = partials_.size();
    if (n == 0) return 0.0;
    double hi = partials_[--n], lo = 0.0;
    while (n > 0) {
      double x = hi, y = partials_[--n];
      hi = x + y;
      double yr = hi - x;
      lo = y - yr;
      if (lo != 0.0) break;
    }
    // Half-way cases: the partials below say which way to round.
    if (n > 0 && ((lo < 0.0 && partials_[n - 1] < 0.0) || (lo > 0.0 && partials_[n - 1] > 0.0))) {
      double y = lo * 2.0, x = hi + y;
      if (y == x - hi) hi = x;
    }
    return hi;
  }

  bool empty() const { return partials_.empty() && !has_special_; }
  /// The exact state, for sending it elsewhere (graphgen-mpi).
  const std::vector<double>& partials() const { return partials_; }
  bool has_special() const { return has_special_; }
  double special() const { return special_; }
  static ExactSum from_parts(std::vector<double> partials, bool has_special, double special) {
    ExactSum s;
    s.partials_ = std::move(partials);
    s.has_special_ = has_special;
    s.special_ = special;
    return s;
  }

 private:
  std::vector<double> partials_;  // non-overlapping, increasing magnitude
  double special_ = 0.0;
  bool has_special_ = false;
};

}  // namespace graphgen
