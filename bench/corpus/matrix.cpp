// perfpilot-corpus: Matrix::multiply, Matrix::trace, Matrix::scale, frobenius
// A dense row-major matrix class with methods, as in a small linear-algebra header.
#include <cmath>
#include <cstddef>
#include <vector>

namespace la {

class Matrix {
 public:
  Matrix(int rows, int cols) : rows_(rows), cols_(cols), data_(std::size_t(rows) * cols, 0.0) {}

  double get(int i, int j) const { return data_[std::size_t(i) * cols_ + j]; }
  void set(int i, int j, double v) { data_[std::size_t(i) * cols_ + j] = v; }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

  Matrix multiply(const Matrix& other) const {
    Matrix out(rows_, other.cols_);
    if (cols_ != other.rows_) return out;
    for (int i = 0; i < rows_; ++i)
      for (int j = 0; j < other.cols_; ++j) {
        double s = 0.0;
        for (int k = 0; k < cols_; ++k) s += get(i, k) * other.get(k, j);
        out.set(i, j, s);
      }
    return out;
  }

  double trace() const;

  void scale(double factor) {
    for (double& v : data_) v *= factor;
  }

 private:
  int rows_;
  int cols_;
  std::vector<double> data_;
};

double Matrix::trace() const {
  double t = 0.0;
  int n = rows_ < cols_ ? rows_ : cols_;
  for (int i = 0; i < n; ++i) t += get(i, i);
  return t;
}

double frobenius(const Matrix& m) {
  double s = 0.0;
  for (int i = 0; i < m.rows(); ++i)
    for (int j = 0; j < m.cols(); ++j) s += m.get(i, j) * m.get(i, j);
  return std::sqrt(s);
}

}  // namespace la
