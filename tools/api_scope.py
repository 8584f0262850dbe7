"""Which of torch's public names are out of minigrad's scope, and why.

A name is in scope unless one of RULES takes it out. Each rule states its reason in one
sentence (the coverage page shows it beside every name the rule takes out) and lists its
names: exactly, as full names, or by a regular expression where torch names a family
systematically (every `cudnn_*` binding, every `quantize*` function). The first rule that
matches a name wins. To review the scope is to read this file.

One rule is not a list: a name that a torch module merely imports (`math`, `Optional`,
`torch.nn.functional.Tensor`) is not torch's API. `imported()` below finds those from the
object itself, so the rule needs no list to keep up with torch's source.
"""

import inspect
import re
from dataclasses import dataclass, field

IMPORTED = (
    "an import of torch's source file (a standard-library module, a typing name, or an "
    "object of another module)"
)

# Modules whose objects, found in a torch namespace, are imports, never torch's API.
FOREIGN_MODULES = re.compile(
    r"^(typing|typing_extensions|collections|collections\.abc|abc|builtins|dataclasses|functools|"
    r"_?bisect|math|weakref|types|enum|warnings|numpy|__future__)(\.|$)"
)
# Imported plain values, which carry no module to tell (`from math import inf`).
IMPORTED_VALUES = {"torch.optim.lr_scheduler.inf"}


@dataclass(frozen=True)
class Rule:
    """Names out of scope for one reason: exact full names, and patterns over full names."""

    label: str
    reason: str
    names: frozenset = field(default_factory=frozenset)
    patterns: tuple = ()

    def matches(self, name):
        return name in self.names or any(re.search(p, name) for p in self.patterns)


def _names(text):
    """The full names of a whitespace-separated block; `torch.nn.{A B}` expands to torch.nn.A,
    torch.nn.B."""
    out = set()
    for prefix, group in re.findall(r"([\w.]*)\{([^}]*)\}", text):
        out.update(prefix + word for word in group.split())
    out.update(re.sub(r"[\w.]*\{[^}]*\}", " ", text).split())
    return frozenset(out)


RULES = [
    Rule(
        "sparse",
        "sparse, nested and masked tensors: every minigrad tensor is one dense NumPy (or CuPy) "
        "array",
        _names(
            """
            torch.{smm sspaddmm hsmm dsmm saddmm spmm hspmm segment_reduce nested jagged
                   resize_as_sparse_ sparse masked}
            torch.optim.{SparseAdam}
            torch.Tensor.{coalesce is_coalesced dense_dim sparse_dim to_dense indices values
                          crow_indices ccol_indices col_indices row_indices sparse_mask
                          sparse_resize_ sparse_resize_and_clear_ to_padded_tensor
                          smm sspaddmm resize_as_sparse_}
            """
        ),
        (
            r"(?<!is_)sparse_(coo|csr|csc|bsr|bsc|compressed)",  # the is_* probes answer False here
            r"^torch\.Tensor\.to_sparse",
            r"_indices_copy$",
            r"\.values_copy$",
        ),
    ),
    Rule(
        "quantized",
        "quantization and low-bit dtypes: minigrad computes in float32/float64 and keeps integers "
        "for indices",
        _names(
            """
            torch.{ao quantization qscheme int_repr dequantize choose_qparams_optimized bit bits8
                   bits16 bits1x8 bits2x4 bits4x2 empty_quantized fused_moving_avg_obs_fake_quant}
            torch.Tensor.{int_repr dequantize qscheme}
            torch.nn.{intrinsic qat quantizable quantized}
            torch.nn.functional.{ScalingType SwizzleType scaled_mm scaled_grouped_mm grouped_mm}
            """
        ),
        (
            r"(?<!is_)quantiz",
            r"\.q_(scale|zero_point|per_channel)",
            r"\.u?int[1-7]$",
            r"\.(qint|quint)",
            r"\.per_(channel|tensor)_",
            r"\.float[48]_",
            r"\.Q[U]?Int\w*Storage$",
            r"fake_quantize",
            r"fbgemm_",
        ),
    ),
    Rule(
        "complex",
        "complex numbers: minigrad's dtypes are real",
        _names(
            """
            torch.{complex complex32 complex64 complex128 cfloat cdouble chalf conj conj_physical
                   conj_physical_ resolve_conj resolve_neg is_conj is_neg view_as_real
                   view_as_complex polar angle real imag isreal stft istft fft ComplexType
                   ComplexDoubleStorage ComplexFloatStorage view_as_real_copy view_as_complex_copy}
            torch.Tensor.{conj conj_physical conj_physical_ resolve_conj resolve_neg is_conj is_neg
                          angle real imag isreal stft istft cfloat cdouble chalf __complex__}
            """
        ),
    ),
    Rule(
        "named tensors",
        "named tensors, a prototype torch itself marks as such",
        _names("torch.Tensor.{names rename rename_ refine_names align_to align_as has_names name}"),
    ),
    Rule(
        "compiler",
        "TorchScript, torch.fx, torch.compile, torch.export and the dispatcher: they trace, "
        "compile or re-dispatch Python programs, and minigrad runs them as Python",
        _names(
            """
            torch.Tensor.{index}
            torch.{jit fx compiler compile export classes futures fork wait library ops overrides
                   package cpp cond while_loop import_ir_module import_ir_module_from_buffer
                   parse_ir parse_schema parse_type_comment merge_type_from_type_comment
                   unify_type_list AliasDb Argument ArgumentSpec Block CallStack Capsule Code
                   CompilationUnit CompleteArgumentSpec ConcreteModuleType ConcreteModuleTypeBuilder
                   DeepCopyMemoTable DisableTorchFunction DisableTorchFunctionSubclass DispatchKey
                   DispatchKeySet ErrorReport ExcludeDispatchKeyGuard ExecutionPlan FileCheck
                   FunctionSchema Future Gradient Graph GraphExecutorState IODescriptor
                   InferredType JITException LiteScriptModule LockingLogger LoggerBase NoopLogger
                   Node OperatorInfo StaticModule Tag TracingState Use Value ModuleDict
                   ParameterDict BufferDict ThroughputBenchmark BenchmarkConfig
                   BenchmarkExecutionStats PRIVATE_OPS}
            torch.Tensor.{__torch_function__ __torch_dispatch__ as_subclass module_load}
            torch.nn.Module.compile
            torch.nn.functional.{BroadcastingList1 BroadcastingList2 BroadcastingList3
                                 boolean_dispatch}
            torch.autograd.{NestedIOFunction}
            """
        ),
        (r"^torch\.(?!Aggregation)\w*Type$", r"^torch\.Script\w+$", r"^torch\.(sym_\w+|Sym\w+)$"),
    ),
    Rule(
        "distributed",
        "distributed training internals: minigrad trains in one process (the entry points programs "
        "call, torch.distributed and its queries, are in scope)",
        _names(
            """
            torch.{RRefType batch_norm_backward_elemt batch_norm_backward_reduce batch_norm_elemt
                   batch_norm_gather_stats batch_norm_gather_stats_with_counts batch_norm_stats
                   batch_norm_update_stats}
            torch.nn.SyncBatchNorm
            """
        ),
    ),
    Rule(
        "accelerator",
        "bindings to vendor kernel libraries (cuDNN, MIOpen, oneDNN, Vulkan) and accelerators "
        "other than NVIDIA GPUs (MPS, XPU, MTIA, IPU, XLA), with their streams and events: "
        "minigrad runs NumPy and Numba on the CPU and Numba CUDA on NVIDIA GPUs",
        _names(
            """
            torch.{mps xpu mtia Stream Event is_vulkan_available
                   profiler_allow_cudagraph_cupti_lazy_reinit_cuda12}
            torch.Tensor.{to_mkldnn record_stream}
            """
        ),
        (r"\.(cudnn|miopen|mkldnn)_", r"_(ipu|xla)_", r"\.(xpu|ipu|mtia)$"),
    ),
    Rule(
        "deprecated",
        "deprecated or removed by torch itself (its reference or a warning says so and names the "
        "replacement)",
        _names(
            """
            torch.{chain_matmul cholesky ger lu lu_solve qr range set_default_tensor_type svd
                   triangular_solve eig lstsq matrix_rank solve symeig get_autocast_gpu_dtype
                   set_autocast_gpu_dtype is_autocast_cpu_enabled set_autocast_cpu_enabled
                   get_autocast_cpu_dtype set_autocast_cpu_dtype TypedStorage Storage StorageBase}
            torch.Tensor.{matrix_power storage storage_type eig lstsq symeig solve reinforce
                          volatile resize resize_as cholesky qr svd lu lu_solve triangular_solve
                          ger}
            torch.nn.{Container NLLLoss2d}
            torch.nn.functional.{upsample upsample_bilinear upsample_nearest}
            torch.nn.init.{uniform normal constant eye dirac xavier_uniform xavier_normal
                           kaiming_uniform kaiming_normal orthogonal sparse}
            torch.nn.utils.{clip_grad_norm weight_norm remove_weight_norm}
            torch.autograd.{Variable variable}
            torch.nn.Module.register_backward_hook
            torch.optim.lr_scheduler.EPOCH_DEPRECATION_WARNING
            """
        ),
        (r"^torch\.(?!Untyped)[A-Z]\w*Storage$",),
    ),
    Rule(
        "storage",
        "storage objects: a minigrad tensor's storage is its NumPy (or CuPy) array, "
        "`Tensor.numpy()`, not a class of its own",
        _names("torch.{UntypedStorage storage} torch.Tensor.{untyped_storage}"),
    ),
    Rule(
        "DataPipes",
        "DataPipes: torchdata's data-loading prototype, which torchdata has deprecated and torch's "
        "reference does not document",
        _names(
            """
            torch.utils.data.{DFIterDataPipe IterDataPipe MapDataPipe DataChunk datapipes
                              functional_datapipe argument_validation runtime_validation
                              runtime_validation_disabled guaranteed_datapipes_determinism
                              non_deterministic graph graph_settings}
            """
        ),
    ),
    Rule(
        "internal",
        "torch's internals that its namespaces expose: the ATen binding behind a documented "
        "function (torch.conv2d is F.conv2d, counted there), copying twins of view ops made for "
        "the compiler, undocumented torch-level in-place twins (the Tensor methods are counted), "
        "build flags and helper modules",
        _names(
            """
            torch.{TYPE_CHECKING USE_GLOBAL_DEPS USE_RTLD_GLOBAL_WITH_LIBTORCH has_lapack has_mkl
                   has_openmp has_spectral compiled_with_cxx11_abi classproperty get_file_path
                   prepare_multiprocessing_environment return_types storage types torch_version
                   version functional monitor AggregationType AVG SUM legacy_contiguous_format
                   PyTorchFileReader PyTorchFileWriter SerializationStorageContext
                   DeserializationStorageContext thread_safe_generator
                   native_batch_norm native_channel_shuffle native_dropout native_group_norm
                   native_layer_norm native_norm norm_except_dim frobenius_norm nuclear_norm
                   conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d
                   conv_tbc convolution constant_pad_nd avg_pool1d max_pool1d max_pool2d
                   max_pool3d max_pool1d_with_indices adaptive_avg_pool1d adaptive_max_pool1d
                   batch_norm layer_norm group_norm instance_norm rms_norm dropout alpha_dropout
                   feature_dropout feature_alpha_dropout embedding embedding_bag bilinear celu selu
                   rrelu prelu hardshrink threshold pixel_shuffle pixel_unshuffle channel_shuffle
                   pdist pairwise_distance cosine_similarity kl_div binary_cross_entropy_with_logits
                   cosine_embedding_loss hinge_embedding_loss margin_ranking_loss
                   triplet_margin_loss poisson_nll_loss ctc_loss grid_sampler grid_sampler_2d
                   grid_sampler_3d affine_grid_generator lstm gru rnn_tanh rnn_relu lstm_cell
                   gru_cell rnn_tanh_cell rnn_relu_cell quantized_gru quantized_lstm
                   unsafe_chunk unsafe_split unsafe_split_with_sizes slice_inverse hash_tensor
                   autocast_decrement_nesting autocast_increment_nesting clear_autocast_cache}
            torch.Tensor.{unsafe_chunk unsafe_split unsafe_split_with_sizes slice_inverse output_nr
                          hash_tensor is_set_to set_ grad_dtype dim_order}
            torch.{torch windows FatalError}
            torch.nn.{common_types factory_kwargs grad}
            torch.nn.Module.{T_destination call_super_init dump_patches}
            torch.optim.Optimizer.{OptimizerPostHook OptimizerPreHook profile_hook_step}
            torch.nn.functional.{GRID_SAMPLE_INTERPOLATION_MODES GRID_SAMPLE_PADDING_MODES DType
                                 TYPE_CHECKING assert_int_or_pair handle_torch_function
                                 has_torch_function has_torch_function_unary
                                 has_torch_function_variadic reproducibility_notes
                                 sparse_support_notes tf32_notes native_channel_shuffle}
            torch.nn.utils.rnn.{PackedSequence_ bind copy_method_params}
            torch.autograd.{handle_torch_function has_torch_function is_tensor_like DeviceType
                            ProfilerActivity ProfilerConfig ProfilerEvent ProfilerState
                            profiler_legacy profiler_util kineto_available overload
                            enforce_grad_layout_policy is_view_replay_enabled}
            """
        ),
        (
            # view_copy, t_copy ...: two documented ones stay
            r"^torch\.(?!(index_copy|narrow_copy)$)\w+_copy$",
            # torch.relu_, torch.abs_: the Tensor methods are counted
            r"^torch\.[a-z]\w*[a-z0-9]_$",
            r"\.TYPE_CHECKING$",  # typing's flag, imported as a value
        ),
    ),
    Rule(
        "source file",
        "a source file of its package: the names it defines are counted where the package exports "
        "them",
        _names(
            """
            torch.nn.utils.{clip_grad convert_parameters fusion init memory_format stateless}
            torch.autograd.{anomaly_mode function grad_mode}
            """
        ),
        # the distributions' files are lower-case modules; its functions and machinery are not
        (
            r"^torch\.distributions\.(?!(kl_divergence|register_kl|biject_to|transform_to|identity_transform|"
            r"constraints|constraint_registry|transforms)$)[a-z]\w*$",
        ),
    ),
    Rule(
        "object machinery",
        "Python's object machinery and torch's internal hooks, not operators: every class has them",
        _names(
            """
            torch.Tensor.{__annotations__ __array_priority__ __array_wrap__ __delitem__ __dict__
                          __dir__ __div__ __doc__ __dlpack_c_exchange_api__ __getstate__ __idiv__
                          __long__ __module__ __new__ __nonzero__ __rdiv__ __reduce__
                          __reduce_ex__ __setstate__ __sizeof__ __weakref__ __deepcopy__}
            """
        ),
    ),
    Rule(
        "beyond the basics",
        "distributions beyond the basics that the coverage issue scopes (the distributions a "
        "course uses: Normal, Categorical, Bernoulli, ...), with the transforms and constraints "
        "machinery",
        frozenset(),
        (
            r"^torch\.distributions\.(?!(Distribution|ExponentialFamily|Normal|Categorical|Bernoulli|Uniform|"
            r"MultivariateNormal|OneHotCategorical|Independent|Beta|Gamma|Exponential|Laplace|LogNormal|"
            r"Poisson|Binomial|Dirichlet|kl_divergence)$)",
        ),
    ),
]


def imported(namespace, obj):
    """True when `obj`, found in the torch module `namespace`, is something that module imports.

    A module outside the namespace's package, an object of the standard library or typing,
    and a Python class or function defined in another module (`torch.nn.functional.Tensor`,
    `torch.optim.lr_scheduler.Optimizer`) are imports. Builtins (torch's C functions such as
    `F.conv2d`, which report `__module__ == "torch"`) are not judged by their module.
    """
    if inspect.ismodule(obj):
        return not (obj.__name__ == namespace or obj.__name__.startswith(namespace + "."))
    home = getattr(obj, "__module__", None)
    if not isinstance(home, str):
        return False
    if FOREIGN_MODULES.match(home):
        return True
    if namespace == "torch" or not (inspect.isclass(obj) or inspect.isfunction(obj)):
        return False
    return not (home == namespace or home.startswith(namespace + "."))


def out_of_scope(name, namespace=None, obj=None):
    """(label, reason) of the rule that takes `name` out of scope, or None when it is in scope."""
    if name in IMPORTED_VALUES or (
        namespace is not None and obj is not None and imported(namespace, obj)
    ):
        return "import", IMPORTED
    for rule in RULES:
        if rule.matches(name):
            return rule.label, rule.reason
    return None
