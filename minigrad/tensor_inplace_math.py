"""Tensor's in-place elementwise math: `exp_`, `clamp_`, `sin_`, `sigmoid_`, `erf_`, `lerp_`,
`cumsum_`, ... Each computes the out-of-place op (`t.exp()`) and writes the result into
this tensor's storage, through `_inplace` (tensor_inplace.py, which says how autograd
records such a write); each returns self.

`Tensor` inherits them (tensor.py).
"""

from minigrad import dtypes

# Bound by tensor.py once they exist: the Tensor class and the ops package (the one break
# in the import circle is at the bottom of tensor.py).
Tensor = ops = None


class InplaceMathMethods:
    """The mixin Tensor inherits these methods from (see the module docstring)."""

    __slots__ = ()

    def exp_(self):
        """exp, in place; returns self."""
        return self._inplace("exp_", Tensor.exp)

    def log_(self):
        """log, in place; returns self."""
        return self._inplace("log_", Tensor.log)

    def sqrt_(self):
        """sqrt, in place; returns self."""
        return self._inplace("sqrt_", Tensor.sqrt)

    def abs_(self):
        """abs, in place; returns self."""
        return self._inplace("abs_", Tensor.abs)

    def neg_(self):
        """Negate in place; returns self."""
        return self._inplace("neg_", Tensor.neg)

    def relu_(self):
        """relu, in place; returns self."""
        return self._inplace("relu_", Tensor.relu)

    def sigmoid_(self):
        """sigmoid, in place; returns self."""
        return self._inplace("sigmoid_", Tensor.sigmoid)

    def tanh_(self):
        """tanh, in place; returns self."""
        return self._inplace("tanh_", Tensor.tanh)

    def floor_(self):
        """floor, in place; returns self."""
        return self._inplace("floor_", Tensor.floor)

    def ceil_(self):
        """ceil, in place; returns self."""
        return self._inplace("ceil_", Tensor.ceil)

    def round_(self, decimals=0):
        """round, in place; returns self."""
        return self._inplace("round_", lambda t: t.round(decimals))

    def reciprocal_(self):
        """1 / x, in place; returns self."""
        return self._inplace("reciprocal_", Tensor.reciprocal)

    # the in-place twins of the elementwise math (minigrad/ops/trig.py, explog.py, ...)
    def sin_(self):
        """sin, in place; returns self."""
        return self._inplace("sin_", Tensor.sin)

    def cos_(self):
        """cos, in place; returns self."""
        return self._inplace("cos_", Tensor.cos)

    def tan_(self):
        """tan, in place; returns self."""
        return self._inplace("tan_", Tensor.tan)

    def asin_(self):
        """asin, in place; returns self."""
        return self._inplace("asin_", Tensor.asin)

    def acos_(self):
        """acos, in place; returns self."""
        return self._inplace("acos_", Tensor.acos)

    def atan_(self):
        """atan, in place; returns self."""
        return self._inplace("atan_", Tensor.atan)

    def sinh_(self):
        """sinh, in place; returns self."""
        return self._inplace("sinh_", Tensor.sinh)

    def cosh_(self):
        """cosh, in place; returns self."""
        return self._inplace("cosh_", Tensor.cosh)

    def asinh_(self):
        """asinh, in place; returns self."""
        return self._inplace("asinh_", Tensor.asinh)

    def acosh_(self):
        """acosh, in place; returns self."""
        return self._inplace("acosh_", Tensor.acosh)

    def atanh_(self):
        """atanh, in place; returns self."""
        return self._inplace("atanh_", Tensor.atanh)

    def atan2_(self, other):
        """atan2(self, other), in place; returns self."""
        return self._inplace("atan2_", lambda t: t.atan2(other), (other,))

    def hypot_(self, other):
        """hypot(self, other), in place; returns self."""
        return self._inplace("hypot_", lambda t: t.hypot(other), (other,))

    arcsin_, arccos_, arctan_, arctan2_ = asin_, acos_, atan_, atan2_
    arcsinh_, arccosh_, arctanh_ = asinh_, acosh_, atanh_

    def sinc_(self):
        """sinc, in place; returns self."""
        return self._inplace("sinc_", Tensor.sinc)

    def deg2rad_(self):
        """Degrees to radians, in place; returns self."""
        return self._inplace("deg2rad_", Tensor.deg2rad)

    def rad2deg_(self):
        """Radians to degrees, in place; returns self."""
        return self._inplace("rad2deg_", Tensor.rad2deg)

    def rsqrt_(self):
        """rsqrt, in place; returns self."""
        return self._inplace("rsqrt_", Tensor.rsqrt)

    def square_(self):
        """square, in place; returns self."""
        return self._inplace("square_", Tensor.square)

    def log1p_(self):
        """log1p, in place; returns self."""
        return self._inplace("log1p_", Tensor.log1p)

    def expm1_(self):
        """expm1, in place; returns self."""
        return self._inplace("expm1_", Tensor.expm1)

    def log2_(self):
        """log2, in place; returns self."""
        return self._inplace("log2_", Tensor.log2)

    def log10_(self):
        """log10, in place; returns self."""
        return self._inplace("log10_", Tensor.log10)

    def exp2_(self):
        """exp2, in place; returns self."""
        return self._inplace("exp2_", Tensor.exp2)

    def logit_(self, eps=None):
        """logit, in place; returns self."""
        return self._inplace("logit_", lambda t: t.logit(eps))

    def xlogy_(self, other):
        """xlogy(self, other), in place; returns self."""
        return self._inplace("xlogy_", lambda t: t.xlogy(other), (other,))

    def float_power_(self, exponent):
        """float_power, in place; self must be float64 (the result's dtype), as in torch."""
        if self.dtype != dtypes.float64:
            raise RuntimeError(
                f"float_power_: the base given to float_power_ has dtype {self.dtype} but the "
                "operation's result requires dtype float64"
            )
        return self._inplace("float_power_", lambda t: t.float_power(exponent), (exponent,))

    def ldexp_(self, other):
        """self * 2^other, in place; returns self."""
        return self._inplace("ldexp_", lambda t: t.ldexp(other), (other,))

    def erf_(self):
        """erf, in place; returns self."""
        return self._inplace("erf_", Tensor.erf)

    def erfc_(self):
        """erfc, in place; returns self."""
        return self._inplace("erfc_", Tensor.erfc)

    def erfinv_(self):
        """erfinv, in place; returns self."""
        return self._inplace("erfinv_", Tensor.erfinv)

    def lgamma_(self):
        """lgamma, in place; returns self."""
        return self._inplace("lgamma_", Tensor.lgamma)

    def digamma_(self):
        """digamma, in place; returns self."""
        return self._inplace("digamma_", Tensor.digamma)

    def polygamma_(self, n):
        """polygamma(n, self), in place; returns self."""
        return self._inplace("polygamma_", lambda t: t.polygamma(n))

    def mvlgamma_(self, p):
        """mvlgamma(self, p), in place; returns self."""
        return self._inplace("mvlgamma_", lambda t: t.mvlgamma(p))

    def i0_(self):
        """i0, in place; returns self."""
        return self._inplace("i0_", Tensor.i0)

    def igamma_(self, other):
        """igamma(self, other), in place; returns self."""
        return self._inplace("igamma_", lambda t: t.igamma(other), (other,))

    def igammac_(self, other):
        """igammac(self, other), in place; returns self."""
        return self._inplace("igammac_", lambda t: t.igammac(other), (other,))

    def sign_(self):
        """sign, in place; returns self."""
        return self._inplace("sign_", Tensor.sign)

    def sgn_(self):
        """sgn, in place; returns self."""
        return self._inplace("sgn_", Tensor.sgn)

    def trunc_(self):
        """trunc, in place; returns self."""
        return self._inplace("trunc_", Tensor.trunc)

    fix_ = trunc_

    def frac_(self):
        """frac, in place; returns self."""
        return self._inplace("frac_", Tensor.frac)

    def fmod_(self, other):
        """fmod(self, other), in place; returns self."""
        return self._inplace("fmod_", lambda t: t.fmod(other), (other,))

    def remainder_(self, other):
        """remainder(self, other), Python's %, in place; returns self."""
        return self._inplace("remainder_", lambda t: t.remainder(other), (other,))

    def floor_divide_(self, other):
        """floor_divide(self, other), Python's //, in place; returns self."""
        return self._inplace("floor_divide_", lambda t: t.floor_divide(other), (other,))

    def copysign_(self, other):
        """copysign(self, other), in place; returns self."""
        return self._inplace("copysign_", lambda t: t.copysign(other), (other,))

    def nextafter_(self, other):
        """nextafter(self, other), in place; returns self."""
        return self._inplace("nextafter_", lambda t: t.nextafter(other), (other,))

    def heaviside_(self, values):
        """heaviside(self, values), in place; returns self."""
        return self._inplace("heaviside_", lambda t: t.heaviside(values), (values,))

    def addcmul_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 * tensor2; returns self."""

        def compute(t):
            return t.addcmul(tensor1, tensor2, value=value)

        return self._inplace("addcmul_", compute, (tensor1, tensor2))

    def addcdiv_(self, tensor1, tensor2, *, value=1):
        """self += value * tensor1 / tensor2; returns self."""

        def compute(t):
            return t.addcdiv(tensor1, tensor2, value=value)

        return self._inplace("addcdiv_", compute, (tensor1, tensor2))

    def lerp_(self, end, weight):
        """self += weight * (end - self); returns self."""
        return self._inplace("lerp_", lambda t: t.lerp(end, weight), (end, weight))

    def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
        """nan_to_num, in place; returns self."""
        return self._inplace("nan_to_num_", lambda t: t.nan_to_num(nan, posinf, neginf))

    def gcd_(self, other):
        """gcd(self, other), in place; returns self."""
        return self._inplace("gcd_", lambda t: t.gcd(other), (other,))

    def lcm_(self, other):
        """lcm(self, other), in place; returns self."""
        return self._inplace("lcm_", lambda t: t.lcm(other), (other,))

    def cumsum_(self, dim, *, dtype=None):
        """cumsum along `dim`, in place; returns self."""
        return self._inplace("cumsum_", lambda t: t.cumsum(dim, dtype=dtype))

    def cumprod_(self, dim, *, dtype=None):
        """cumprod along `dim`, in place; returns self."""
        return self._inplace("cumprod_", lambda t: t.cumprod(dim, dtype=dtype))

    # torch's other names
    negative_, absolute_ = neg_, abs_
