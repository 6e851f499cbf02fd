// SPDX-License-Identifier: MIT
/*
 * cost_knobs.c - the knob table (names, defaults, units, docs) and overrides.
 * Nothing here is collective.
 */
#include <prism/knobs.h>

#include <errno.h>
#include <math.h>
#include <string.h>

#include <prism/core.h>

static const PrismKnobInfo table[PRISM_KNOB_COUNT] = {
    [PRISM_KNOB_COMPUTE_EFFICIENCY] =
        {"compute_efficiency", 0.0, 0.0, 1.0, "fraction",
         "achieved fraction of the tensor peak at the sustained "
         "clock by a large, perfectly shaped GEMM (tile/wave "
         "quantisation and the HBM roofline come on top; "
         "memory-bound kernels: hbm_*); 0 = the device's "
         "(cluster gemm_efficiency: cuBLAS measurements, A100/"
         "H100 0.8, B200 0.631), 0.8 where it gives none",
         "convention: 0 = the device's gemm_efficiency (each cluster preset cites its cuBLAS "
         "figure); where a device gives none, PRISM_GEMM_EFFICIENCY_FALLBACK 0.8 = cuBLAS on A100 "
         "(~250-270 of 312 TFLOP/s) and H100 SXM (789-798 of 989 TFLOP/s, "
         "zzc0721/torch-performance-test-data#79)"},
    [PRISM_KNOB_NET_EFFICIENCY] =
        {"net_efficiency", 0.8, 0.01, 1.0, "fraction", "achieved fraction of link bandwidth",
         "published: nccl-tests all_reduce_perf bus bandwidth, 8x A100 SXM over NVLink ~200-230 of "
         "300 GB/s (NVIDIA/nccl-tests#149, #178) and 24 of 25 GB/s per HDR NIC "
         "(NVIDIA/nccl-tests#119): 0.8, one fraction for both"},
    [PRISM_KNOB_TP_OVERLAP] = {"tp_overlap", 0.0, 0.0, 1.0, "fraction",
                               "fraction of TP communication hidden behind compute while the "
                               "strategy's tp_overlap dim is 1 (0: exposed in full)",
                               "code: NVIDIA/Megatron-LM megatron/training/arguments.py "
                               "--tp-comm-overlap off by default: TP collectives on the critical "
                               "path (Narayanan et al. SC21, arXiv:2104.04473 3.3)"},
    [PRISM_KNOB_CP_OVERLAP] =
        {"cp_overlap", 1.0, 0.0, 1.0, "fraction",
         "fraction of a ring step's attention compute that hides the "
         "next K/V chunk's exchange",
         "published: Liu et al. 2023, Ring Attention (arXiv:2310.01889) 3: each block's K/V "
         "send/receive runs concurrently with the block's attention compute"},
    [PRISM_KNOB_EP_OVERLAP] =
        {"ep_overlap", 0.0, 0.0, 1.0, "fraction", "fraction of EP all-to-all hidden behind compute",
         "code: NVIDIA/Megatron-LM megatron/core/transformer/moe/token_dispatcher.py (core_r0.9+): "
         "the all-to-all dispatcher runs on the compute stream; EP overlap is opt-in"},
    [PRISM_KNOB_DP_OVERLAP] =
        {"dp_overlap", 0.5, 0.0, 1.0, "fraction",
         "fraction of DP/ZeRO communication hidden behind compute: the "
         "gradient reduce while dp_overlap is 1, the parameter gather "
         "while param_overlap is 1 (0: exposed in full)",
         "convention: half of the DP/ZeRO traffic hidden, between 0 (no --overlap-grad-reduce, "
         "Megatron-LM 2021/2022) and SAPP-ND's calibrated 0.9 (shared/reference/SEEDS.md 3.2, "
         "fitted on MindFormers step times): no measured figure; to be replaced by the bucketed "
         "mechanism (issue 37)"},
    [PRISM_KNOB_PP_OVERLAP] =
        {"pp_overlap", 0.0, 0.0, 1.0, "fraction",
         "fraction of PP point-to-point hidden behind compute",
         "code: NVIDIA/Megatron-LM megatron/core/pipeline_parallel/p2p_communication.py: blocking "
         "send/recv in 1F1B (--overlap-p2p-comm off by default)"},
    [PRISM_KNOB_FLASH_ATTENTION] = {"flash_attention", 1.0, 0.0, 1.0, "bool",
                                    "1 = flash attention: no s^2 score activations",
                                    "convention: current stacks run flash or fused attention "
                                    "(FlashAttention-2, Dao 2023 arXiv:2307.08691; Transformer "
                                    "Engine DotProductAttention); profiles of older stacks set 0"},
    [PRISM_KNOB_GRAD_FP32] =
        {"grad_fp32", 1.0, 0.0, 1.0, "bool",
         "1 = gradients accumulated in fp32 (4 B/param), 0 = in dtype",
         "code: NVIDIA/Megatron-LM megatron/training/arguments.py: --bf16 turns on "
         "--accumulate-allreduce-grads-in-fp32 (an fp32 main_grad, 4 B per parameter)"},
    [PRISM_KNOB_MEM_MARGIN] =
        {"mem_margin", 0.0, 0.0, 1e12, "bytes",
         "bytes kept free on each device beyond the device-level figure (a "
         "user's safety room)",
         "convention: 0: the device-level figure feasibility is decided on already holds the "
         "caching allocator's reserve (allocator_reserve), the CUDA context (cuda_context) and "
         "NCCL's buffers (nccl_channels, nccl_conn_bytes)"},
    [PRISM_KNOB_RUNTIME_OVERHEAD] =
        {"runtime_overhead", 33554432.0, 0.0, 1e12, "bytes",
         "library workspaces the caching allocator holds per device (cuBLAS), "
         "counted in the allocated peak",
         "code: pytorch/pytorch aten/src/ATen/cuda/CublasHandlePool.cpp (v2.4-v2.5): the cuBLAS "
         "workspace of the compute stream's handle, 4096 x 8 KiB = 32 MiB on Hopper and later "
         "(4096 x 2 + 16 x 8 KiB before), allocated from the CUDA caching allocator "
         "(getNewWorkspace)"},
    [PRISM_KNOB_DROPOUT] = {"dropout", 1.0, 0.0, 1.0, "bool",
                            "1 = dropout masks are stored for backward (1 byte/element)",
                            "code: NVIDIA/Megatron-LM megatron/training/arguments.py "
                            "--hidden-dropout 0.1, --attention-dropout 0.1 by default; masks kept "
                            "at 1 byte/element (Korthikanti et al. 2022, arXiv:2205.05198 4.1)"},
    [PRISM_KNOB_CAUSAL_SKIP] =
        {"causal_skip", 0.5, 0.0, 1.0, "fraction",
         "attention-core FLOPs skipped by causal flash attention",
         "count: a causal mask leaves the lower triangle, s(s+1)/2 of the s^2 scores (1/2 for s "
         "much larger than a block); flash kernels skip the masked blocks"},
    [PRISM_KNOB_LOGITS_BYTES] =
        {"logits_bytes", 4.0, 1.0, 8.0, "bytes",
         "bytes per logit kept for the cross-entropy (fp32 = 4)",
         "published: Korthikanti et al. 2022 (arXiv:2205.05198) 4.3: the cross-entropy keeps fp32 "
         "logits, 4sbv/t bytes (4 B per fp32 value)"},
    [PRISM_KNOB_MOE_IMBALANCE] = {"moe_imbalance", 1.0, 1.0, 64.0, "ratio",
                                  "busiest expert's tokens / mean tokens (dropless MoE)",
                                  "code: NVIDIA/Megatron-Bridge DeepSeek-V3 performance recipes "
                                  "(deepseek_v3_pretrain_256gpu_b200_* and the GB200/GB300 ones, "
                                  "2025): moe_router_force_load_balancing = True, the published "
                                  "MoE benchmarks route force-balanced: busiest expert = mean"},
    [PRISM_KNOB_ZERO3_PREFETCH] =
        {"zero3_prefetch", 2.0, 1.0, 64.0, "layers",
         "layers of gathered parameters held at once by ZeRO-3",
         "published: Zhao et al. 2023, PyTorch FSDP (arXiv:2304.11277) 4.2: the rate limiter "
         "allows two all-gathered units in flight (the current and the prefetched one)"},
    [PRISM_KNOB_BWD_RATIO] = {"bwd_ratio", 2.0, 1.0, 4.0, "ratio",
                              "backward FLOPs / forward FLOPs (dX and dW GEMMs)",
                              "published: Narayanan et al. SC21 (arXiv:2104.04473) 5.1: backward = "
                              "the dX and dW GEMMs, each as large as the forward (2x)"},
    [PRISM_KNOB_PP_SCATTER] =
        {"pp_scatter", 1.0, 0.0, 1.0, "bool",
         "1 = pipeline sends 1/tp of an activation (scatter-gather)",
         "published: Narayanan et al. SC21 (arXiv:2104.04473) 4.1: scatter/gather of pipeline "
         "sends over the tp ranks (Megatron-LM default)"},
    [PRISM_KNOB_HBM_GBPS] =
        {"hbm_GBps", 0.0, 0.0, 1e5, "GB/s",
         "device memory bandwidth; 0 = the cluster's (memory_bandwidth_GBps)",
         "convention: 0 = the cluster's memory_bandwidth_GBps (each preset cites its datasheet)"},
    [PRISM_KNOB_HBM_EFFICIENCY] =
        {"hbm_efficiency", 0.8, 0.05, 1.0, "fraction",
         "achieved fraction of memory bandwidth (elementwise, "
         "optimizer)",
         "published: streaming kernels (BabelStream-class) reach about 80-90 % of the datasheet "
         "HBM bandwidth (cost/README.md, Knobs): the low end"},
    [PRISM_KNOB_GRAD_ACCUM_EXPOSED] =
        {"grad_accum_exposed", 1.0, 0.0, 1.0, "fraction",
         "share of the per-micro-batch gradient accumulation "
         "(read + write of the gradient buffer) not hidden",
         "convention: the read + write of the fp32 main_grad per parameter per micro-batch is "
         "priced whole: Megatron-Core accumulates in its own kernel or the wgrad GEMM's epilogue, "
         "not overlapped (cost/README.md, Gradient accumulation)"},
    [PRISM_KNOB_BWD_WORKING_SET] =
        {"bwd_working_set", 1.0, 0.0, 1.0, "bool",
         "1 = a layer's backward holds one micro-batch of its "
         "activations' size (gradients); 0 = full recompute only",
         "convention: a layer's backward holds gradients of its activations' size beside them "
         "(SAPP-ND's rule, shared/reference/SEEDS.md 2.7)"},
    [PRISM_KNOB_FP8_GEMM_RATIO] =
        {"fp8_gemm_ratio", 0.875, 0.1, 1.0, "fraction",
         "large FP8 GEMM throughput / twice the BF16 one (cuBLAS "
         "12.9 on Hopper: FP8 1.75x BF16 on large GEMMs)",
         "published: NVIDIA technical blog 'Boosting Matrix Multiplication Speed and Flexibility "
         "with NVIDIA cuBLAS 12.9' (2025): FP8 1.75x BF16 on large Hopper GEMMs, 1.75 / 2"},
    [PRISM_KNOB_GEMM_QUANTISATION] = {"gemm_quantisation", 1.0, 0.0, 1.0, "bool",
                                      "1 = GEMMs pay tile padding and partial last waves over "
                                      "the device's SMs; 0 = no quantisation",
                                      "published: NVIDIA Deep Learning Performance Guide, 'Matrix "
                                      "Multiplication Background' (tile and wave quantization)"},
    [PRISM_KNOB_ATTN_FWD_FRACTION] = {"attn_fwd_fraction", 0.0, 0.0, 1.0, "fraction",
                                      "flash-attention forward: achieved fraction of the BF16 "
                                      "peak; 0 = the device's (cluster attn_fwd_fraction: the "
                                      "FA2/FA3 paper figure); set for another kernel (e.g. FA2 "
                                      "on Hopper)",
                                      "convention: 0 = the device's attn_fwd_fraction (each "
                                      "cluster preset cites its flash-attention paper figure)"},
    [PRISM_KNOB_ATTN_BWD_FRACTION] = {"attn_bwd_fraction", 0.0, 0.0, 1.0, "fraction",
                                      "flash-attention backward (of its 2.5x-forward matmul "
                                      "FLOPs); 0 = the device's",
                                      "convention: 0 = the device's attn_bwd_fraction (each "
                                      "cluster preset cites its flash-attention paper figure)"},
    [PRISM_KNOB_FSDP_RESHARD] =
        {"fsdp_reshard", 1.0, 0.0, 1.0, "bool",
         "1 = ZeRO-3 frees gathered parameters after forward and "
         "gathers again in backward; 0 = keeps them (ZeRO-2 memory)",
         "code: pytorch torch.distributed.fsdp.fully_shard(reshard_after_forward=True) default "
         "(FSDP2; FULL_SHARD in FSDP1)"},
    [PRISM_KNOB_HSDP] = {"hsdp", 0.0, 0.0, 1.0, "bool",
                         "1 = ZeRO/FSDP shards within a node and replicates across nodes "
                         "(HSDP: all-reduce of the shard's gradients)",
                         "code: pytorch torch.distributed.fsdp.fully_shard shards over the whole "
                         "mesh it is given; HSDP (a 2-D mesh) is opt-in"},
    [PRISM_KNOB_DP_BUCKET] = {"dp_bucket", 0.0, 0.0, 1e12, "params",
                              "ZeRO 0-2: parameters per bucket of the overlapped gradient "
                              "reduce / parameter gather (Megatron-Core 4e7); 0 = dp_overlap",
                              "convention: 0 = the dp_overlap fraction. Megatron-Core's own "
                              "mechanism is buckets of max(4e7, 1e6*dp) parameters "
                              "(megatron/core/distributed/distributed_data_parallel_config.py "
                              "bucket_size); it is not the default because it changed the order of "
                              "2 of 23 validation row groups (cost/README.md, MoE rows pass 2; "
                              "issue 37 audit): row-chosen, to be replaced by the mechanism"},
    [PRISM_KNOB_CP_ALGO] = {"cp_algo", 0.0, 0.0, 1.0, "code",
                            "0 = ring attention (P2P K/V exchange); 1 = all-to-all "
                            "(Ulysses) where heads/tp divide by cp, ring elsewhere",
                            "code: NVIDIA/Megatron-LM --cp-comm-type p2p by default (Transformer "
                            "Engine's ring attention)"},
    [PRISM_KNOB_CP_LOAD_BALANCE] =
        {"cp_load_balance", 1.0, 0.0, 1.0, "bool",
         "1 = causal ring with zig-zag chunks (balanced); 0 = "
         "contiguous chunks (the last rank paces the ring)",
         "code: Megatron-Core / Transformer Engine, torchtitan and Llama 3 (arXiv:2407.21783 "
         "3.3.2) split causal CP into 2c chunks, load-balanced"},
    [PRISM_KNOB_SEQ1F1B_SPLITS] = {"seq1f1b_splits", 4.0, 1.0, 64.0, "chunks",
                                   "sequence chunks per micro-batch under schedule=seq1f1b "
                                   "(Sun et al. 2024)",
                                   "convention: within the 2-8 sequence splits Sun et al. 2024, "
                                   "Seq1F1B (arXiv:2406.03488) evaluate"},
    [PRISM_KNOB_MOE_DISPATCHER] =
        {"moe_dispatcher", 0.0, 0.0, 1.0, "code",
         "MoE token dispatcher: 0 = all-to-all over the EP group, "
         "then all-gather over ETP (Megatron-Core alltoall); 1 = "
         "all-gather of every token over the etp*ep group and "
         "reduce-scatter back (Megatron-Core allgather)",
         "code: NVIDIA/Megatron-LM "
         "tests/functional_tests/test_cases/mixtral/*_release/model_config.yaml: "
         "--moe-token-dispatcher-type alltoall (the MoE team's release recipes)"},
    [PRISM_KNOB_SELECTIVE_POLICY] =
        {"selective_policy", 0.0, 0.0, 2.0, "code",
         "what recompute=selective keeps: 0 = all but the attention "
         "core (Korthikanti); 1 = per-op SAC: the block input, SDPA's "
         "outputs and every other matmul's output (torchtitan); 2 = per-op "
         "SAC whose attention op is not on the save list (cuDNN SDPA before "
         "torchtitan#2095): SDPA's outputs are not kept and SDPA runs again",
         "published: Korthikanti et al. 2022 (arXiv:2205.05198) 5: selective recompute drops the "
         "attention core only (Megatron --recompute-granularity selective)"},
    [PRISM_KNOB_LOSS_BWD_EXTRA] =
        {"loss_bwd_extra", 0.0, 0.0, 4.0, "copies",
         "extra copies of the logits (logits_bytes each) live while "
         "the loss runs backward: 0 = fused in-place cross-entropy "
         "(Megatron), 1 = eager F.cross_entropy (saved log-softmax, "
         "incoming and produced gradient)",
         "code: NVIDIA/Megatron-LM megatron/core/tensor_parallel/cross_entropy.py: the "
         "vocab-parallel cross-entropy writes its gradient into the softmax buffer (no extra "
         "copy)"},
    [PRISM_KNOB_ELEMENTWISE_EAGER] =
        {"elementwise_eager", 0.0, 0.0, 1.0, "bool",
         "1 = eager PyTorch: RMSNorm, RoPE and SwiGLU as separate "
         "ops, each reading its inputs and writing its output; 0 = "
         "fused kernels (Megatron/TE, torch.compile)",
         "code: Megatron-Core with Transformer Engine runs fused norm, RoPE and bias-SwiGLU "
         "kernels (megatron/core/fusions/); eager PyTorch is a profile's setting"},
    [PRISM_KNOB_FSDP_PP_NOSYNC] = {"fsdp_pp_nosync", 0.0, 0.0, 1.0, "bool",
                                   "1 = with pipeline parallelism ZeRO-3/FSDP keeps the stage's "
                                   "parameters gathered and accumulates unsharded gradients "
                                   "over the micro-batches, reduce-scattering once after the "
                                   "last backward (torch.distributed.pipelining + FSDP2)",
                                   "convention: off; the pytorch-fsdp profile sets "
                                   "torch.distributed.pipelining + FSDP2's no-sync accumulation"},
    [PRISM_KNOB_TP_LAYOUT_COPY] =
        {"tp_layout_copy", 0.0, 0.0, 1.0, "bool",
         "1 = every sequence-parallel TP all-gather / reduce-scatter "
         "also copies its full tensor once through HBM (PyTorch "
         "functional collectives on the sequence dim 1 of [b, s, h]: "
         "torch.cat of the chunks); 0 = sequence-first layout "
         "(Megatron [s, b, h])",
         "code: NVIDIA/Megatron-LM megatron/core/tensor_parallel/mappings.py: sequence-first [s, "
         "b, h] layout, SP collectives on dim 0 (no reorder copy)"},
    [PRISM_KNOB_ZERO3_LOWP_SHARD] =
        {"zero3_lowp_shard", 1.0, 0.0, 1.0, "bool",
         "1 = ZeRO-3 holds a 16-bit shard of the parameters next "
         "to the optimizer's fp32 master (DeepSpeed ZeRO-3); 0 = the "
         "shard is the fp32 parameter itself, cast to 16 bits only "
         "into the all-gather (FSDP2 MixedPrecisionPolicy)",
         "code: microsoft/DeepSpeed deepspeed/runtime/zero/stage3.py: a 16-bit parameter partition "
         "beside the fp32 master of the optimizer"},
    [PRISM_KNOB_SP_SAVES_GATHERED] =
        {"sp_saves_gathered", 0.0, 0.0, 1.0, "bool",
         "1 = with SP the column-parallel linears save their "
         "all-gathered input for backward (PyTorch DTensor "
         "SequenceParallel + ColwiseParallel); 0 = the shard is "
         "kept and gathered again in backward (Megatron)",
         "published: Korthikanti et al. 2022 (arXiv:2205.05198) 4.2.2: Megatron's SP keeps the "
         "shard and all-gathers it again in backward"},
    [PRISM_KNOB_TP_OVERLAP_BUFFERS] =
        {"tp_overlap_buffers", 10.0, 0.0, 64.0, "tensors",
         "device memory of TP communication overlap: userbuffers "
         "of one micro-batch's full sequence x hidden each, held "
         "while tp_overlap is on (tp > 1, SP; Transformer Engine "
         "initialize_ub registers 10); only when tp_overlap > 0",
         "code: NVIDIA/TransformerEngine transformer_engine/pytorch/module/base.py initialize_ub: "
         "one userbuffer per overlapped GEMM, 4 ring-exchange + 2 pipelined + 4 bulk = 10 (shape "
         "[seq*mbs/cp, hidden], Megatron-LM megatron/training/initialize.py "
         "_initialize_tp_communicators)"},
    [PRISM_KNOB_NIC_SPREAD] =
        {"nic_spread", 1.0, 0.0, 1.0, "bool",
         "1 = a DP/ZeRO/FSDP or TP collective whose group has k > 1 members on "
         "each node crosses the nodes on their k NICs (NCCL channels): "
         "1/k of the per-device inter-node time, at least the intra-node "
         "link's; 0 = every group at one device's NIC. The EP "
         "all-to-all always crosses on one NIC per device (it cannot "
         "aggregate NICs)",
         "published: NVIDIA/nccl issue #601 (NCCL builds one ring per NIC, each through a "
         "different NIC) and nccl-tests issue #319 (~48 GB/s per CX7 NIC aggregated to ~396 GB/s "
         "on H100); the EP all-to-all stays on one NIC: nccl-tests issue #267"},
    [PRISM_KNOB_SHARED_EXPERT_OVERLAP] = {"shared_expert_overlap", 0.0, 0.0, 1.0, "bool",
                                          "1 = the shared experts run on a side stream beside "
                                          "the EP dispatch and combine (Megatron-Core "
                                          "--moe-shared-expert-overlap): each pass hides up to "
                                          "the shared experts' GEMM time of its all-to-alls",
                                          "code: NVIDIA/Megatron-LM megatron/training/arguments.py "
                                          "--moe-shared-expert-overlap off by default"},
    [PRISM_KNOB_RECOMPUTE_MOE_ACT] = {"recompute_moe_act", 0.0, 0.0, 1.0, "bool",
                                      "1 = recompute = selective also drops the routed experts' "
                                      "activation output (fc2's input) and runs the activation "
                                      "again in backward (Megatron-Core --recompute-modules "
                                      "moe_act)",
                                      "code: NVIDIA/Megatron-LM megatron/training/arguments.py "
                                      "--recompute-modules defaults to core_attn only"},
    [PRISM_KNOB_MFU_CORE] =
        {"mfu_core", 0.0, 0.0, 2.0, "code",
         "how the model FLOPs of MFU count the attention core: 0 = as "
         "executed (causal flash attention skips 1 - causal_skip of it, "
         "without flash all of it runs: MFU can then not exceed what the "
         "device does); 1 = the full core (Narayanan et al. 2021, "
         "torchtitan's 12*L*h*s, Megatron-LM before 2025); 2 = half of it "
         "(Megatron-LM's causal-mask count since Megatron-Core 0.12). HFU, "
         "times and executed FLOPs do not depend on it",
         "convention: MFU counts the attention core as executed, so it cannot pass what the device "
         "does (cost/README.md, Knobs); 1 and 2 are the published counts"},
    [PRISM_KNOB_FP8_SCOPE] =
        {"fp8_scope", 0.0, 0.0, 2.0, "code",
         "which linear GEMMs an FP8 recipe (--dtype fp8, fp8-cs, mxfp8) "
         "runs in FP8: 0 = every one (Transformer Engine, torchao Float8 on "
         "each nn.Linear); 1 = the dense linears only (attention, dense and "
         "shared-expert MLPs, MTP projection), routed experts in BF16; 2 = "
         "the routed experts' grouped GEMMs only (torchao MoE training's "
         "grouped-GEMM recipe). The head, router and attention core stay "
         "BF16 in every case",
         "code: NVIDIA/TransformerEngine fp8_autocast covers every TE linear; pytorch/ao Float8 "
         "converts every nn.Linear; DeepSeek-V3 (arXiv:2412.19437) 3.3: all linear GEMMs"},
    [PRISM_KNOB_MX_CAST_PASSES] =
        {"mx_cast_passes", 1.0, 1.0, 2.0, "code",
         "MXFP8 (--dtype mxfp8) casts of inputs, weights and output "
         "gradients: 1 = one fused kernel reads the BF16 tensor once "
         "and writes its row-wise and column-wise MX copies (2 + 2 x "
         "(1 + 1/32) = 4.0625 B per element; Transformer Engine); 2 = "
         "a kernel per layout, each reading the tensor (2 x (2 + 1 + "
         "1/32) = 6.0625 B; torchao's dim0 and dim1 casts)",
         "code: NVIDIA/TransformerEngine MXFP8 quantize writes the row-wise and column-wise copies "
         "from one read of the tensor (transformer_engine/common/util/cast_kernels.cuh)"},
    [PRISM_KNOB_MX_CAST_EFFICIENCY] = {"mx_cast_efficiency", 0.0, 0.0, 1.0, "fraction",
                                       "achieved fraction of the HBM bandwidth by the MXFP8 cast "
                                       "kernels; 0 = hbm_efficiency, as every memory-bound "
                                       "kernel (torchao on B200: dim0 up to 6.3, dim1 up to 3.9 "
                                       "of 8 TB/s, 0.602 for their equal bytes)",
                                       "convention: 0 = hbm_efficiency, as every memory-bound "
                                       "kernel; profiles give a stack's published cast rate"},
    [PRISM_KNOB_KV_REPEAT] =
        {"kv_repeat", 0.0, 0.0, 1.0, "bool",
         "1 = a GQA model repeats its K/V heads to the query heads before "
         "attention (torchtitan's Llama attention calls repeat_kv before "
         "SDPA, torchtitan#1283; removed in #2259, 2026-01): autograd keeps "
         "the repeated K and V for the attention backward and context "
         "parallelism exchanges them (query heads' worth, sharded by tp "
         "like the queries), and the copy is one more read and write",
         "convention: off: GQA's K/V heads reach the attention kernel as they are (flash and cuDNN "
         "kernels take GQA natively); the pytorch-fsdp profile sets torchtitan's repeat_kv"},
    [PRISM_KNOB_CP_DKV_FP32] =
        {"cp_dkv_fp32", 0.0, 0.0, 1.0, "bool",
         "1 = the backward ring of context parallelism passes the K/V "
         "gradients in fp32 beside the K/V in the activation dtype "
         "(PyTorch's context_parallel accumulates dq/dk/dv in fp32 and "
         "rotates dK/dV as one fp32 buffer per step): a backward step "
         "carries 1 + 4/bytes KV-sized units instead of 2",
         "convention: off: the K/V gradients ride the ring in the activation dtype; the "
         "pytorch-fsdp profile sets PyTorch context_parallel's fp32 dK/dV buffer"},
    [PRISM_KNOB_NCCL_MODEL] = {"nccl_model", 1.0, 0.0, 1.0, "bool",
                               "1 = TP and DP/ZeRO collectives are priced as NCCL's tuning "
                               "model prices a ring: per collective a base latency and per "
                               "ring step a hop latency (NVLink inside the node, network "
                               "outside) for each protocol (LL, LL128, Simple), LL at 1/4 and "
                               "LL128 at 0.92 of the bus bandwidth, the fastest protocol for "
                               "the message's size; 0 = the cluster level's latency_us per "
                               "step at the bus bandwidth",
                               "code: NVIDIA/nccl src/graph/tuning.cc @ b6475625: the model NCCL "
                               "itself uses to choose a protocol (cost/kernels/kernels-nccl.h)"},
    [PRISM_KNOB_LAUNCH_US] = {"launch_us", 8.0, 0.0, 1000.0, "us",
                              "host time per kernel an eager PyTorch framework launches "
                              "(Python, dispatcher and the CUDA launch): a layer's "
                              "micro-batch takes at least its launches x launch_us (the "
                              "host floor); 3.8 = a bare CUDA launch, 0 = no host floor "
                              "(CUDA graphs)",
                              "published: flagos-ai/Torch-FL #27 (2026, A100 host): "
                              "torch.add on 512x512 CUDA tensors issued back to back from "
                              "Python through PyTorch's own CUDA dispatch takes 8 us of "
                              "host time per op (the kernel about 2 us); flagos-ai/FlagGems "
                              "#4812: about 7 us per eager op on tiny tensors; a bare launch "
                              "takes 3.8 us (NVIDIA Technical Blog, A. Gray, 'Getting "
                              "Started with CUDA Graphs', 2019)"},
    [PRISM_KNOB_LAYER_KERNELS_FWD] =
        {"layer_kernels_fwd", 15.0, 0.0, 10000.0, "kernels",
         "kernels one transformer layer launches in forward besides its TP "
         "collectives (again under full recompute): the host floor's count; "
         "the TP collectives' launches are counted per strategy",
         "count: Megatron-LM megatron/model/transformer.py "
         "ParallelTransformerLayer with fused kernels: layernorm, QKV GEMM, "
         "bias add, baddbmm, scale-mask-softmax, dropout, bmm, permute copy, "
         "proj GEMM, bias-dropout-add, layernorm, fc1 GEMM, bias-GeLU, fc2 "
         "GEMM, bias-dropout-add = 15 (+ the 2 TP all-reduces when tp > 1)"},
    [PRISM_KNOB_LAYER_KERNELS_BWD] = {"layer_kernels_bwd", 30.0, 0.0, 10000.0, "kernels",
                                      "kernels one transformer layer launches in backward "
                                      "besides its TP collectives: the host floor's count",
                                      "count: the same layer's autograd backward: 4 linears x "
                                      "(dgrad + wgrad) 8, bias grads 2, layernorm backward 2 x 3, "
                                      "bias-dropout-add backward 2 x 2, residual adds 2, bias-GeLU "
                                      "1, softmax 1, dropout 1, two bmm 2 x 2, permute copy 1 = 30 "
                                      "(+ the 2 TP all-reduces when tp > 1)"},
    [PRISM_KNOB_LAYER_KERNELS_SP_FWD] =
        {"layer_kernels_sp_fwd", 0.0, 0.0, 10000.0, "kernels",
         "kernels one transformer layer launches in forward under sequence "
         "parallelism at tp > 1 besides those of layer_kernels_fwd and one "
         "reduce-scatter and one all-gather per TP collective (again under "
         "full recompute): a framework's own extra launches, for the host floor",
         "convention: 0 = no launches beyond the counted ones; a framework "
         "profile sets its own count from its code (nanotron.ini)"},
    [PRISM_KNOB_LAYER_KERNELS_SP_BWD] =
        {"layer_kernels_sp_bwd", 0.0, 0.0, 10000.0, "kernels",
         "kernels one transformer layer launches in backward under sequence "
         "parallelism at tp > 1 besides those of layer_kernels_bwd and one "
         "reduce-scatter and one all-gather per TP collective: a framework's "
         "own extra launches, for the host floor",
         "convention: as layer_kernels_sp_fwd"},
    [PRISM_KNOB_DP_BUCKET_PER_RANK] =
        {"dp_bucket_per_rank", 0.0, 0.0, 1e9, "params",
         "parameters a DP bucket holds per member of the DP x CP "
         "group when that exceeds dp_bucket: the bucket is "
         "max(dp_bucket, dp_bucket_per_rank x dp x cp) "
         "(Megatron-Core's default max(4e7, 1e6 x dp_cp)); only "
         "with dp_bucket > 0",
         "code: NVIDIA/Megatron-LM megatron/core/distributed/distributed_data_parallel_config.py "
         "(core_r0.7.0+), bucket_size default max(40000000, 1000000 * dp_size); 0 here: only "
         "the megatron-core profiles bucket"},
    [PRISM_KNOB_TP_UB_SMS] =
        {"tp_ub_sms", 0.0, 0.0, 1024.0, "SMs",
         "Transformer Engine userbuffers TP overlap (tp > 1, SP, the "
         "tp_overlap dim on): SMs the pipelined reduce-scatter and the "
         "bulk overlaps' communication kernels take from the GEMM they "
         "run beside; the GEMM loses k/SMs of its rate while that "
         "communication runs. 0 = the tp_overlap fraction instead",
         "code: NVIDIA/TransformerEngine transformer_engine/pytorch/module/base.py initialize_ub "
         "get_default_config (TE 1.x-2.x): num_sm 16 for the pipeline and bulk methods; NeMo's "
         "tuned configs use 16-24 (tp_overlap_configs/userbuffers.py). 0 here: only the "
         "megatron-core profiles run it"},
    [PRISM_KNOB_TP_UB_SPLITS] =
        {"tp_ub_splits", 4.0, 1.0, 64.0, "chunks",
         "chunks of the pipelined userbuffers reduce-scatter (proj and "
         "fc2 forward): each chunk's reduce-scatter runs under the next "
         "chunk's GEMM, the last one after the GEMM (exposed); only "
         "with tp_ub_sms > 0",
         "code: NVIDIA/TransformerEngine transformer_engine/pytorch/module/base.py initialize_ub "
         "get_default_config: num_splits 4 for the pipeline method"},
    [PRISM_KNOB_NCCL_SMS] =
        {"nccl_sms", 16.0, 0.0, 1024.0, "SMs",
         "SMs an NCCL data-parallel / FSDP collective holds while it runs "
         "hidden behind compute (one per channel; NCCL's CTAs never share "
         "an SM with compute kernels): the overlapped compute runs at (S - "
         "nccl_sms)/S of its rate, so hiding H seconds of such a collective "
         "costs H x nccl_sms/S; 0 = no loss. S = the device's sm_count "
         "(none given: no loss)",
         "published: NVIDIA/nccl issue #689 (2023): NCCL uses one SM per channel, 16 SMs on a "
         "DGX with 8 NICs, and its CTAs never share an SM with compute"},
    [PRISM_KNOB_NVFP4_BF16_LAYERS] =
        {"nvfp4_bf16_layers", 10.0, 0.0, 1e6, "layers",
         "NVFP4 and MXFP4 (--dtype nvfp4, mxfp4): transformer layers whose linear GEMMs stay in "
         "BF16 (the recipe keeps the first and last blocks in higher precision for stability); "
         "the share min(1, n / layers) of the linear GEMMs runs at the BF16 rate without casts "
         "or FP4 weight copies. 0 = every linear GEMM in FP4",
         "published: NVIDIA, 'Pretraining Large Language Models with NVFP4' (arXiv:2509.25149) "
         "4.1: the 12B model keeps its first 2 and last 8 blocks in BF16 (about 16 % of its "
         "linear layers); Megatron-LM --first-last-layers-bf16 sets the counts"},
    /* The device-level memory (cost/README.md, "Memory as each source measures it") */
    [PRISM_KNOB_CUDA_CONTEXT] =
        {"cuda_context", 3.0e8, 0.0, 1e11, "bytes",
         "device memory of the CUDA context (driver state, loaded kernels) outside "
         "the caching allocator: in the device figure (nvidia-smi), not in "
         "reserved or allocated",
         "published: pytorch/pytorch issue #107667 (2023, ptrblck): the CUDA context takes about "
         "300 MB since CUDA 11.7's lazy module loading (over 1000 MB before)"},
    [PRISM_KNOB_NCCL_CHANNELS] =
        {"nccl_channels", 16.0, 0.0, 64.0, "channels",
         "NCCL channels per communicator; each holds a buffer per peer it "
         "connects to (2 per ring: the previous and the next rank)",
         "published: NVIDIA/nccl issue #689 (2023): 16 channels (one SM each) on a DGX with 8 "
         "NICs"},
    [PRISM_KNOB_NCCL_CONN_BYTES] =
        {"nccl_conn_bytes", 9633792.0, 0.0, 1e10, "bytes",
         "device bytes NCCL allocates per channel per connected peer: the "
         "buffers of its three protocols (Simple NCCL_BUFFSIZE + LL128 + LL)",
         "code: NVIDIA/nccl src/init.cc (v2.18-v2.23) computeBuffSizes: DEFAULT_BUFFSIZE 1 << 22 "
         "= 4,194,304 (Simple, NCCL_BUFFSIZE) + DEFAULT_LL128_BUFFSIZE 120 x 640 x 8 x 8 = "
         "4,915,200 + DEFAULT_LL_BUFFSIZE 8 x 512 x 8 x 16 = 524,288 = 9,633,792 B"},
    [PRISM_KNOB_ALLOCATOR_RESERVE] =
        {"allocator_reserve", 0.343, 0.0, 1.0, "fraction",
         "PyTorch's caching allocator without expandable segments: reserved "
         "bytes beyond allocated per transient allocated byte (activations, "
         "workspaces, communication buffers: blocks rounded to 512 B, large "
         "ones to 2 MiB in 20 MiB or 2 MiB-rounded segments, freed blocks "
         "cached per stream and never merged across segments); persistent "
         "state (parameters, gradients, optimizer state) takes none; with "
         "expandable_segments 1 the segments grow in place and only the "
         "last 20 MiB large page and 2 MiB small page stay unfilled",
         "derived: (peak reserved - peak active) / (peak active - persistent) of the FSDP "
         "LoRA runs of meta-llama/llama-cookbook PR #41 (Llama-2-7B, 4 A100, pure bf16: the "
         "persistent state is the frozen bf16 shard, 6,738,415,616 x 2 B / 4 = 3.138 GiB, the "
         "adapters' under 0.01 GiB): 6.81/22.72, 7.16/17.06, 4.14/12.08 = 0.300, 0.420, 0.343, "
         "median 0.343 (GB read as GiB, PyTorch's memory statistics; as 1e9 B: 0.349); PR #165 "
         "(19.52/14.93 GB) does not state its run's state and is left out; the rounding and "
         "segment sizes are pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp (v2.1-v2.5) "
         "kMinBlockSize 512, kSmallBuffer 2 MiB, kLargeBuffer 20 MiB, kRoundLarge 2 MiB"},
    [PRISM_KNOB_EXPANDABLE_SEGMENTS] =
        {"expandable_segments", 0.0, 0.0, 1.0, "bool",
         "1 = PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: reserved = "
         "allocated + one 20 MiB large page + one 2 MiB small page; 0 = "
         "reserved = allocated + (allocated - persistent) x allocator_reserve",
         "code: pytorch/pytorch c10/cuda/CUDAAllocatorConfig.cpp (v2.1-v2.5): "
         "expandable_segments defaults to False"},
    [PRISM_KNOB_RECOMPUTE_NORM] =
        {"recompute_norm", 0.0, 0.0, 1.0, "bool",
         "1 = recompute = selective also drops the outputs of the two pre-norms (the attention "
         "and MLP linears' inputs) and runs both norms again in backward (Megatron-Core "
         "--recompute-modules layernorm; DeepSeek-V3 recomputes every RMSNorm)",
         "code: NVIDIA/Megatron-LM megatron/core/transformer/transformer_config.py "
         "recompute_modules (2025): default [\"core_attn\"]; \"layernorm\" recomputes "
         "input_layernorm and pre_mlp_layernorm with output-discarding checkpointing"},
    [PRISM_KNOB_RECOMPUTE_MLA_UP] =
        {"recompute_mla_up", 0.0, 0.0, 1.0, "bool",
         "1 = recompute = selective also drops MLA's up-projection outputs (Q, K, V) and the "
         "normed latents they read, and runs the up-projections, their norms and RoPE again "
         "in backward (Megatron-Core --recompute-modules mla_up_proj; DeepSeek-V3 Sec. 3.2.3)",
         "code: NVIDIA/Megatron-LM megatron/core/transformer/transformer_config.py "
         "recompute_modules (2025): default [\"core_attn\"]; \"mla_up_proj\" recomputes the "
         "MLA up projection and RoPE with output-discarding checkpointing"},
    [PRISM_KNOB_ACT_CACHE_FP8] =
        {"act_cache_fp8", 0.0, 0.0, 1.0, "bool",
         "1 = under recompute = selective the linear layers' kept inputs are cached in FP8 (1 B "
         "+ a 4 B scale per 128), the attention output in E5M6 (1.5 B + scale), and the MoE "
         "SwiGLU keeps its inputs in FP8 and recomputes its output (DeepSeek-V3 Sec. 3.3.3); "
         "0 = kept in the activation dtype",
         "published: DeepSeek-AI 2024, DeepSeek-V3 Technical Report (arXiv:2412.19437) Sec. "
         "3.3.3 Low-Precision Activation; the default 0 is the BF16 cache of Megatron-Core's "
         "recipes"},
    [PRISM_KNOB_MOE_PROBS_IN_ACT] =
        {"moe_probs_in_act", 0.0, 0.0, 1.0, "bool",
         "1 = the router's probabilities scale each routed row inside the experts' activation "
         "(before fc2, which is linear) and the combine sums unweighted, so no expert output "
         "is kept for the probabilities' gradient; 0 = the combine multiplies the experts' "
         "outputs by the probabilities and keeps them (h per routed row)",
         "code: NVIDIA/TransformerEngine PR #1468 (moe_permute_with_probs, 2025-02): 'apply the "
         "probs to the MoE expert MLP rather than to the unpermutation to avoid saving huge "
         "input tensor of unpermute function'; the default 0 is the unpermute with probs of "
         "Megatron-Core core_r0.9 moe_utils.py unpermute and of torchtitan's combine "
         "(pytorch/torchtitan PR #4095)"},
    [PRISM_KNOB_ADAM_MOMENT_BYTES] =
        {"adam_moment_bytes", 4.0, 1.0, 4.0, "bytes",
         "bytes per optimizer moment (Adam's two, SGD's momentum): 4 = fp32, 2 = BF16 moments "
         "(DeepSeek-V3 Sec. 3.3.3); the fp32 master copy is separate",
         "code: NVIDIA/Megatron-LM megatron/core/optimizer (core_r0.9): Adam's exp_avg and "
         "exp_avg_sq in fp32 beside the fp32 main params"},
    [PRISM_KNOB_EP_A2A_OVERLAP] =
        {"ep_a2a_overlap", 0.0, 0.0, 1.0, "bool",
         "1 = the forward of one micro-batch and the backward of another run interleaved, "
         "each one's EP dispatch and combine on a communication stream under the other's "
         "compute, hidden up to the stage's compute (Megatron-Core "
         "--overlap-moe-expert-parallel-comm, the combined 1F1B schedule; DualPipe and "
         "DualPipeV always do this); 0 = the all-to-alls on the critical path",
         "code: NVIDIA/Megatron-LM megatron/training/arguments.py "
         "--overlap-moe-expert-parallel-comm (off by default; the combined_1f1b schedule "
         "interleaves attention, MLP, dispatch and combine of two micro-batches)"},
    [PRISM_KNOB_GRAD_REDUCE_BYTES] =
        {"grad_reduce_bytes", 0.0, 0.0, 8.0, "bytes",
         "bytes per gradient element the data-parallel / ZeRO gradient "
         "reduction (all-reduce, reduce-scatter) moves; 0 = the gradient's "
         "own (4 with grad_fp32, else the dtype's). A stack that reduces "
         "16-bit gradients and keeps an fp32 main gradient sets 2",
         "convention: 0 = the reduction moves the gradient buffer as it is held (Megatron-Core's "
         "grad_reduce_in_fp32 follows --accumulate-allreduce-grads-in-fp32); profiles whose "
         "code reduces 16-bit gradients beside an fp32 main gradient set 2"},
    [PRISM_KNOB_GEMM_TILE_US] =
        {"gemm_tile_us", 3.1, 0.0, 1000.0, "us",
         "a GEMM wave's fixed time beside its main loop (pipeline fill, "
         "epilogue): a wave costs (main loop + t0) / (1 + t0 / its main loop at "
         "depth gemm_eff_k), so small-K GEMMs run below the large-GEMM rate; 0 = "
         "none (with gemm_quantisation only)",
         "published: K-sweeps fitted to rate ~ K / (K + K0): cuBLAS (aten matmul) BF16 on B200, "
         "(8192, 8192, K) 714, 839, 915, 959 TFLOP/s at K = 1024-8192 (meta-pytorch/tritonbench"
         "#1011): K0 = 420 at 1008 TFLOP/s = 6.81 per SM, 128x256 tile: 4.0 us; DeepGEMM FP8 on "
         "H800, K 512-16384 (deepseek-ai/DeepGEMM#73): K0 = 762 at 1462 TFLOP/s, 128x128 tile: "
         "2.25 us; their mean 3.1 us"},
    [PRISM_KNOB_GEMM_EFF_K] =
        {"gemm_eff_k", 6144.0, 1.0, 1e6, "elements",
         "reduction depth of the GEMMs the devices' gemm_efficiency was "
         "measured at: there the tile's fixed cost (gemm_k_overhead) is "
         "already in the rate",
         "published: the devices' GEMM efficiencies are square GEMMs of 4096^3-8192^3 (H100: "
         "zzc0721/torch-performance-test-data#79; B200: pytorch/ao#2427; B200 at 750 W: "
         "facebookexperimental/triton#854): 6144, their middle"},
    [PRISM_KNOB_ZERO_SYNC_EXPOSED] =
        {"zero_sync_exposed", 0.0, 0.0, 1.0, "bool",
         "1 = with ZeRO >= 1 the data-parallel collectives run outside any "
         "compute: the gradient reduce-scatter after the last backward, the "
         "parameter all-gather after the optimizer step (nanotron with fp32 "
         "gradient accumulation builds no DDP then); 0 = as dp_bucket or "
         "dp_overlap hide them",
         "code: Megatron-Core and DeepSpeed overlap ZeRO's collectives with backward (0); "
         "huggingface/nanotron src/nanotron/trainer.py make_ddp = dp > 1 and not "
         "(accumulate_grad_in_fp32 and zero_stage > 0), FP32GradientAccumulator."
         "sync_gradients_across_dp after backward, ZeroDistributedOptimizer.step "
         "_all_gather_params (1, the nanotron profile)"},
    [PRISM_KNOB_PP_P2P_MSGS] =
        {"pp_p2p_msgs", 1.0, 1.0, 64.0, "messages",
         "point-to-point messages each stage-boundary transfer of a micro-batch "
         "takes, the mean of the forward activation's and the backward "
         "gradient's; each pays the level's latency, serially (seq1F1B "
         "multiplies it by its splits)",
         "code: NVIDIA/Megatron-LM megatron/core/pipeline_parallel/p2p_communication.py sends "
         "each tensor in one send/recv when the shapes are known (1); huggingface/nanotron "
         "parallel/pipeline_parallel/p2p.py P2P.send_tensors: two metadata sends and the "
         "tensor, 3 per tensor; Llama's blocks pass hidden_states and sequence_mask forward, "
         "the gradient of hidden_states back: (6 + 3) / 2 = 4.5 (the nanotron profile)"},
    [PRISM_KNOB_LOSS_BYTES] =
        {"loss_bytes", 0.0, 0.0, 1000.0, "bytes",
         "HBM bytes the cross-entropy moves per logit element, its forward "
         "and backward together (the logits GEMM's own traffic aside), for a "
         "loss run op by op; 0 = a fused cross-entropy: read the 16-bit "
         "logits (activation bytes), write and read the logits_bytes softmax, (2 + 2 x "
         "logits_bytes) x (1 + bwd_ratio)",
         "convention: 0, the fused loss (one read of the logits, the softmax written and read "
         "in each pass); huggingface/nanotron src/nanotron/parallel/tensor_parallel/"
         "functional.py (00708b80) sharded_cross_entropy / _ShardedCrossEntropy op by op: "
         "38 forward + 14 backward = 52 (the nanotron profile); NVIDIA/Megatron-LM "
         "vocab_parallel_cross_entropy (mpu/cross_entropy.py 2021-2022, core/tensor_parallel/"
         "cross_entropy.py; --cross-entropy-loss-fusion off by default) the same ops: 52 (the "
         "Megatron profiles); torchtitan's eager F.cross_entropy over fp32 logits: 36"},
    [PRISM_KNOB_LAYOUT_COPIES] =
        {"layout_copies", 0.0, 0.0, 100.0, "tensors",
         "query-width tensors (heads x head_dim per token, sharded by tp) an "
         "attention layer copies only to change their memory layout "
         "(permute().contiguous(), torch.cat, the backward's stack and cat), "
         "forward and backward together, each read and written once; 0 = "
         "none (the fused QKV layouts of Megatron and Transformer Engine)",
         "code: NVIDIA/Megatron-LM megatron/core/transformer/attention.py splits the fused QKV "
         "output by views (0); huggingface/nanotron src/nanotron/models/llama.py (03b83fc8) "
         "CausalSelfAttention MHA path: 3 + 2 + 2 forward, 2 + 3 + 3 backward = 15 (the "
         "nanotron profile)"},
    [PRISM_KNOB_ZERO1_GRAD_ALLREDUCE] =
        {"zero1_grad_allreduce", 0.0, 0.0, 1.0, "bool",
         "1 = ZeRO-1 reduces the gradients with an all-reduce of the whole "
         "gradient buffer, 2(n-1)/n of it at the level's all-reduce figure, "
         "before the optimizer's parameter all-gather; 0 = a reduce-scatter of "
         "the shards, (n-1)/n at the all-gather / reduce-scatter figure",
         "code: Megatron-Core's distributed optimizer reduce-scatters "
         "(distributed/param_and_grad_buffer.py, 0); huggingface/nanotron src/nanotron/"
         "trainer.py (004a89ca) training_step calls sync_gradients_across_dp(..., "
         "reduce_scatter=False) and optim/gradient_accumulator.py (ec8725ac) "
         "FP32GradientAccumulator.sync_gradients_across_dp then runs dist.all_reduce on "
         "the contiguous fp32 gradient buffer (1, the nanotron profile)"},
    [PRISM_KNOB_GRAD_LOWP_KEPT] =
        {"grad_lowp_kept", 0.0, 0.0, 1.0, "bool",
         "1 = with grad_fp32 the model-dtype gradient of every parameter is held "
         "beside the fp32 accumulation buffer until the micro-batch's backward "
         "ends (the whole backward runs, then the gradients are added into the "
         "fp32 buffer and dropped): the parameter dtype's bytes more per "
         "parameter, sharded as the gradients; 0 = each gradient is accumulated "
         "as it is produced",
         "code: NVIDIA/Megatron-LM megatron/core/distributed (core_r0.9-r0.12): main_grad "
         "accumulation in the backward hook (0); huggingface/nanotron src/nanotron/optim/"
         "gradient_accumulator.py (069c21cf) FP32GradientAccumulator.backward: loss.backward() "
         "first, then _accumulate_grad adds half_param.grad into the fp32 buffer and sets it to "
         "None (1, the nanotron profile)"},
    [PRISM_KNOB_DDP_GRAD_COPY] =
        {"ddp_grad_copy", 0.0, 0.0, 1.0, "bool",
         "1 = with ZeRO-0 and more than one data-parallel replica, torch "
         "DistributedDataParallel (gradient_as_bucket_view False, its default) "
         "holds a flat copy of every gradient in its buckets: the parameter "
         "dtype's bytes more per parameter; 0 = no such copy (Megatron-Core's "
         "buffers are the gradients themselves)",
         "code: pytorch/pytorch torch/nn/parallel/distributed.py (v2.1-v2.5) "
         "gradient_as_bucket_view=False (\"the saved memory size will be equal to the total "
         "gradients size\" when True); huggingface/nanotron src/nanotron/trainer.py "
         "DistributedDataParallel(model, process_group, broadcast_buffers=False, bucket_cap_mb) "
         "when dp > 1 and not (accumulate_grad_in_fp32 and zero_stage > 0) (1, the nanotron "
         "profile)"},
    [PRISM_KNOB_SWIGLU_UNFUSED] =
        {"swiglu_unfused", 0.0, 0.0, 1.0, "bool",
         "1 = SwiGLU runs as two eager ops, silu(gate) then the product with up: "
         "autograd keeps the silu output beside gate, up and the product (4 "
         "ffn-wide tensors per token instead of 3); 0 = a fused SwiGLU keeps its "
         "input and fc2 its output",
         "code: NVIDIA/Megatron-LM megatron/core/fusions/fused_bias_swiglu.py (core_r0.9-r0.12, "
         "bias_swiglu_fusion on by default): saves the input only (0); huggingface/nanotron "
         "src/nanotron/models/llama.py GLUActivation.forward: self.act(gate_states) * up_states "
         "(nn.SiLU keeps gate, the product keeps silu's output and up, down_proj keeps the "
         "product) (1, the nanotron profile)"},
    [PRISM_KNOB_PP_P2P_HOST_SYNCS] =
        {"pp_p2p_host_syncs", 0.0, 0.0, 10000.0, "syncs",
         "host synchronisations each stage-boundary transfer of a micro-batch "
         "makes, the mean of the forward activation's and the backward "
         "gradient's: reads of device tensors on the host (.item(), a tensor "
         "used as a Python int or bool) and blocking host-to-device copies. "
         "Each waits for the device, so the transfer's critical path takes "
         "(launch_us + host_sync_us) per sync (seq1F1B multiplies it by its "
         "splits)",
         "code: NVIDIA/Megatron-LM megatron/core/pipeline_parallel/p2p_communication.py posts "
         "each send/recv with shapes both sides know, no host read (0); huggingface/nanotron "
         "parallel/pipeline_parallel/p2p.py (3024b465) P2P._recv_meta, create_empty_storage, "
         "_send_meta: 10 + 2 x ndim reads per tensor received, 4 per tensor sent; Llama's "
         "blocks pass hidden_states (3-D) and sequence_mask (2-D) forward, the 3-D gradient "
         "back: (16 + 14 + 8 + 16 + 4) / 2 = 29 (the nanotron profile)"},
    [PRISM_KNOB_HOST_SYNC_US] =
        {"host_sync_us", 6.0, 0.0, 1000.0, "us",
         "host time of one host synchronisation beyond the eager op that "
         "asks for it (launch_us): the small blocking copy between host and "
         "device it waits for; used by pp_p2p_host_syncs",
         "published: Wu et al. 2026, 'DualPath: Breaking the Storage Bandwidth Bottleneck in "
         "Agentic LLM Inference', arXiv:2602.21548, section 5.2: a single small "
         "cudaMemcpyAsync takes about 5-7 us per call (6, the middle)"},
    [PRISM_KNOB_MOE_COUNT_SYNC] =
        {"moe_count_sync", 0.0, 0.0, 1.0, "bool",
         "1 = the all-to-all token dispatcher exchanges the per-expert token "
         "counts before it moves any token: every MoE layer's forward (again "
         "under full recompute) all-gathers them over the ETP x EP group (a "
         "latency-bound collective of E integers, priced at NCCL's LL ring "
         "latency over the levels it spans) and reads them on the host "
         "(launch_us + host_sync_us), with the device idle meanwhile; 0 = no "
         "exchange (counts known in advance, or another dispatcher)",
         "code: 0 by default (DeepEP and the all-gather dispatcher are not priced by it); "
         "NVIDIA/Megatron-LM megatron/core/transformer/moe/token_dispatcher.py "
         "MoEAlltoAllTokenDispatcher.preprocess: gather_from_sequence_parallel_region("
         "num_local_tokens_per_expert, group=tp_ep_group), then _maybe_dtoh_and_synchronize "
         "at cuda_sync_point 'before_permutation_1' (capacity factor, no padding) or "
         "'before_ep_alltoall' (dropless) when ep > 1 (1, the megatron-core-moe profile)"},
    [PRISM_KNOB_ZERO1_GATHER_COPIES] =
        {"zero1_gather_copies", 0.0, 0.0, 4.0, "copies",
         "with ZeRO-1/2 over more than one rank, the unsharded flat copies of "
         "the stage's model-dtype parameters that the all-gather after the "
         "optimizer step holds, beside a flat copy of the rank's own shard: "
         "the stage's peak is at least its persistent state + bytes_p x "
         "params x (copies + 1/shard), transient (the activations are freed by "
         "then); 0 = the gather writes into the parameters in place",
         "code: NVIDIA/Megatron-LM megatron/core/distributed/param_and_grad_buffer.py "
         "(core_r0.12) all-gathers the updated shards into the contiguous parameter buffer "
         "(0); huggingface/nanotron src/nanotron/optim/zero.py (069c21cf) "
         "ZeroDistributedOptimizer.step ends in _all_gather_params, whose "
         "distributed.py all_gather_coalesced flattens the rank's shards "
         "(_flatten_dense_tensors, 1/shard) and one output per DP rank (1) and calls "
         "dist.all_gather with that list, which pytorch/pytorch torch/csrc/distributed/c10d/"
         "ProcessGroupNCCL.cpp allgather (same-sized outputs) gathers into one more flattened "
         "tensor (flatten_for_scatter_gather / newLikeFlat) before copying out (1): 2, the "
         "nanotron profile"},
    [PRISM_KNOB_GROUPED_GEMM_RATIO] =
        {"grouped_gemm_ratio", 1.0, 0.05, 1.0, "fraction",
         "the routed experts' grouped GEMMs run at this fraction of the dense large-GEMM "
         "rate of their dtype (the compute-bound time / ratio; the HBM roofline as before): "
         "1 = a grouped launch is as efficient as one large GEMM (DeepGEMM's and CUTLASS's "
         "grouped kernels on Hopper, cost/README.md 'Grouped GEMMs against a published "
         "table'); a framework profile sets what its grouped GEMM reaches on a device",
         "published: deepseek-ai/DeepGEMM README (Feb 2025, H800 FP8): contiguous grouped "
         "GEMMs at training shapes 1093-1297 TFLOP/s against 1304 for the dense 4096 x 4096 x "
         "7168 of the same README, within the dense GEMM's own error of the large-GEMM rate "
         "(cost/README.md): 1"},
    [PRISM_KNOB_LAYER_HOST_SYNCS] =
        {"layer_host_syncs", 0.0, 0.0, 1000.0, "syncs",
         "host synchronisations in each layer's forward: blocking host-to-device "
         "copies (torch.tensor(value, device=cuda)) and host reads of device "
         "values. Each drains the device's queue, so the device then waits for "
         "the host: launch_us + host_sync_us per sync and layer forward (again "
         "under full recompute), in compute; 0 = none",
         "code: NVIDIA/Megatron-LM megatron/model/transformer.py ParallelTransformerLayer."
         "forward creates no device tensor from a host value and reads none (0); "
         "microsoft/Megatron-DeepSpeed's copy adds two (2, the megatron-deepspeed profile)"},
    [PRISM_KNOB_FSDP_GATHER_POOL] =
        {"fsdp_gather_pool", 0.0, 0.0, 64.0, "units",
         "ZeRO-3: units' gathered parameters that stay reserved in the all-gather stream's "
         "own pool of the caching allocator, beside the compute stream's peak (the largest "
         "unit's gathered bytes each, on the reserved and device figures and the verdict); 0 = "
         "gathered in the compute "
         "stream's pool (the allocated peak holds them)",
         "code: pytorch/pytorch c10/cuda/CUDACachingAllocator.cpp (v2.5) pools blocks per "
         "stream: only a stack that allocates its gathered buffers on a side stream keeps "
         "such a pool; 0 counts none (the pytorch-fsdp profile sets FSDP2's 2)"},
    [PRISM_KNOB_TP_GATHER_BUFFERS] =
        {"tp_gather_buffers", 0.0, 0.0, 16.0, "tensors",
         "device memory of persistent TP gather buffers: tensors of one micro-batch's full "
         "sequence x hidden (activation dtype) that a framework allocates once and keeps for "
         "the run, on every stage with tp > 1 and sequence parallelism, whatever tp_overlap; "
         "0 = gathered tensors are transient (Megatron-Core's global memory buffer is "
         "counted with the activations)",
         "code: 0 counts none; huggingface/nanotron src/nanotron/parallel/utils.py "
         "MemoryBuffer (a singleton that only grows) and parallel/tensor_parallel/"
         "functional.py (00708b80) \"allgather\" and \"allgather2\": the nanotron profile "
         "sets 2"},
    [PRISM_KNOB_SOFTMAX_FUSION_RULE] =
        {"softmax_fusion_rule", 0.0, 0.0, 1.0, "bool",
         "without flash attention: 1 = the attention scores' fused scale-mask-softmax "
         "kernel runs only where Megatron's FusedScaleMaskSoftmax allows it (16 < seq <= "
         "2048, seq % 4 = 0, micro-batch x heads/tp % 4 = 0, 16-bit scores); elsewhere "
         "the eager path casts the scores to fp32, scales, masks, takes torch's softmax "
         "and casts back: 32 more bytes per score element forward, 34 backward, 4 more "
         "launches per pass (cost/README.md 'The unfused softmax'); 0 = always fused",
         "code: 0 prices the fused kernel everywhere (a stack without this rule); "
         "microsoft/Megatron-DeepSpeed megatron/model/fused_softmax.py @ 0782d753 and "
         "NVIDIA/Megatron-LM megatron/model/fused_softmax.py @ 0cb36de2 "
         "FusedScaleMaskSoftmax.forward custom_kernel_constraint: the megatron-deepspeed "
         "and megatron-lm-2021 profiles set 1"},
    [PRISM_KNOB_MB_HOST_SYNCS] =
        {"mb_host_syncs", 0.0, 0.0, 1000.0, "syncs",
         "host synchronisations of loading one micro-batch (blocking host-to-device "
         "copies, host reads of device values), on the stages that load it: the first "
         "(its embedding) and, with pp > 1, the last (its head; at pp = 1 the one stage "
         "loads once). Each drains the device's queue: launch_us + host_sync_us per sync "
         "and micro-batch, in the compute of the embedding and the head; 0 = none",
         "code: NVIDIA/Megatron-LM megatron/training/utils.py @ d086a2e3 "
         "get_batch_on_this_tp_rank: the TP source rank copies the tensors with "
         ".cuda(non_blocking=True), the others receive them by broadcast into tensors of the "
         "shapes every rank knows (micro_batch_size x seq_length), nothing read back (0); the "
         "megatron-lm-2021/2022 profiles' mpu.broadcast_data makes 3; "
         "microsoft/Megatron-DeepSpeed pretrain_gpt.py "
         "(0782d753) get_batch_pipe -> mpu.broadcast_data: the sizes' blocking copy, their "
         ".cpu() read, the tokens' blocking .cuda() (3, the megatron-deepspeed profile)"},
    [PRISM_KNOB_STEP_LAYER_SYNCS] =
        {"step_layer_syncs", 0.0, 0.0, 1000.0, "syncs",
         "host synchronisations per layer of a stage in each optimizer step (host reads "
         "of device values: a gradient norm read per parameter tensor), each at launch_us "
         "+ host_sync_us, added to the stage's optimizer step; the embedding's and the "
         "head's tensors are not counted; 0 = none",
         "code: NVIDIA/Megatron-LM megatron/core/optimizer/clip_grads.py @ 32f91553 "
         "clip_grad_norm_fp32: one multi_tensor_l2norm over all gradients, one all-reduce "
         "and one total_norm.item() per step, none per layer (0; the per-step reads are "
         "step_host_syncs'); "
         "microsoft/DeepSpeed deepspeed/runtime/utils.py (2ef4fd57) "
         "get_global_norm_of_tensors: t.data.float().norm(2).item() per tensor, which "
         "bf16_optimizer.py (06e39a56) BF16_Optimizer.step calls on every parameter tensor: "
         "a GPT block's 12 (the megatron-deepspeed profile)"},
    [PRISM_KNOB_TP_FREED_INPUTS] =
        {"tp_freed_inputs", 0.0, 0.0, 64.0, "tensors",
         "full-sequence x hidden inputs (activation dtype) of TP collectives that a layer "
         "frees, forward and backward together, while torch's NCCL process group still "
         "holds them by recordStream: the caching allocator cannot reuse such a block until "
         "the host sees its collective done, so the blocks of the launches the host runs ahead "
         "of the device stay reserved. At tp > 1, on one stage or where the pipeline's "
         "transfers do not wait on the host: tp_freed_inputs x launch_queue / (the layer's "
         "launches: layer_kernels_fwd + layer_kernels_bwd, + the SP counts under SP) x T x h "
         "x bytes on the reserved and device figures and the verdict; 0 = none held",
         "code: 0 counts none; pytorch/pytorch #76861 and pytorch/torchtitan #735 (c10d's "
         "ProcessGroupNCCL records its inputs on the NCCL stream; TORCH_NCCL_AVOID_RECORD_"
         "STREAMS=1 avoids it); huggingface/nanotron src/nanotron/parallel/tensor_parallel/"
         "functional.py (00708b80): _RowLinearAsyncCommunication.forward reduce-scatters "
         "F.linear's [seq, mbs, h] output (o_proj, down_proj), _ColumnLinearAsyncCommunication."
         "backward the [seq, mbs, h] grad_tensor (qkv_proj, gate_up_proj): the nanotron "
         "profile sets 4"},
    [PRISM_KNOB_LAUNCH_QUEUE] =
        {"launch_queue", 1000.0, 1.0, 1.0e6, "launches",
         "kernel launches a CUDA stream holds before the host blocks on the next launch: how "
         "far a host that launches faster than the device runs ahead (tp_freed_inputs)",
         "published: NVIDIA developer forums, \"CUDA stream are blocked when launch lots of "
         "kernels (>1000)\" (2018, thread 68937; stackoverflow.com/questions/53970187): "
         "launches return in 4-5 us until about 1,000 are queued on a stream, then each "
         "waits for a kernel to finish"},
    [PRISM_KNOB_STEP_HOST_SYNCS] =
        {"step_host_syncs", 0.0, 0.0, 1000.0, "syncs",
         "host synchronisations of each stage's optimizer step and training loop, once per "
         "step whatever the layer count (host reads of device values, blocking host-to-device "
         "copies), each at launch_us + host_sync_us, added to the stage's optimizer step; "
         "0 = none",
         "code: 0 prices none (a stack whose step reads nothing back); NVIDIA/Megatron-LM "
         "megatron/optimizer/optimizer.py @ d657a3ef "
         "MixedPrecisionOptimizer._unscale_main_grads_and_check_for_nan: found_inf.item() under "
         "fp16, "
         "megatron/optimizer/clip_grads.py @ 82945c1a clip_grad_norm_fp32: "
         "torch.cuda.IntTensor([0]) and total_norm.item(), megatron/training.py @ 003ad9f5 "
         "train: optimizer.get_loss_scale().item() per iteration (4, the megatron-lm-2021 and "
         "megatron-lm-2022 profiles)"},
    [PRISM_KNOB_PP_TP_PARTITIONED] =
        {"pp_tp_partitioned", 0.0, 0.0, 1.0, "bool",
         "1 = at tp > 1 each stage-boundary transfer is a tensor partitioned over the TP "
         "ranks (DeepSpeed's PipelineEngine with pipe_partitioned and grad_partitioned): "
         "each rank sends 1/tp of it (as pp_scatter) plus one small meta message built by a "
         "blocking host-to-device copy (launch_us + host_sync_us), and the receiving stage "
         "all-gathers the whole activation over its TP group before using it: once for an "
         "activation, twice for a gradient (the gradient and the stage's own output, freed "
         "after the send), 1.5 gathers per transfer, each at the TP level's all-gather "
         "figure and latency; 0 = the transfer is one message, no gather",
         "code: 0 prices none (Megatron-LM and Megatron-Core send the tensor itself); "
         "microsoft/DeepSpeed deepspeed/runtime/config.py get_pipeline_config "
         "(pipe_partitioned and grad_partitioned True by default), "
         "deepspeed/runtime/pipe/engine.py @ 0050fdad (is_pipe_partitioned = "
         "is_model_parallel and pipe_partitioned; _exec_forward_pass: PartitionedTensor, "
         "to_meta, from_meta(...).full() on the receiver; _exec_send_grads; "
         "_exec_backward_pass: two full() with grad_partitioned), deepspeed/runtime/utils.py "
         "@ 029615a3 PartitionedTensor.to_meta (torch.LongTensor(meta).to(device)) and full "
         "(all_gather_into_tensor over the slice-parallel group) (1, the megatron-deepspeed "
         "profile)"},
};

const PrismKnobInfo *prism_knob_info(PrismKnobId id)
{
    return (unsigned)id < PRISM_KNOB_COUNT ? &table[id] : NULL;
}

gboolean prism_knob_lookup(const char *name, PrismKnobId *out, GError **error)
{
    const char *names[PRISM_KNOB_COUNT];
    for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
        names[i] = table[i].name;
        if (strcmp(name, table[i].name) == 0) {
            *out = (PrismKnobId)i;
            return TRUE;
        }
    }
    g_autofree char *close = prism_close_names(name, names, PRISM_KNOB_COUNT, 3);
    g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_UNKNOWN_NAME,
                "unknown knob '%s' (closest: %s; `prism knobs` lists all)", name, close);
    return FALSE;
}

void prism_knobs_default(PrismKnobs *knobs)
{
    for (int i = 0; i < PRISM_KNOB_COUNT; i++)
        knobs->v[i] = table[i].def;
}

/* @p mask (NULL: none) marks the knob set */
static gboolean set_value(PrismKnobs *knobs, gboolean *mask, const char *name, const char *value,
                          const char *where, GError **error)
{
    PrismKnobId id;
    if (!prism_knob_lookup(name, &id, error)) {
        if (where != NULL)
            g_prefix_error(error, "%s: ", where);
        return FALSE;
    }
    char *end = NULL;
    errno = 0;
    double v = g_ascii_strtod(value, &end);
    if (end == value || *end != '\0' || errno != 0 || v != v) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE,
                    "%s%sknob '%s': '%s' is not a number", where ? where : "", where ? ": " : "",
                    name, value);
        return FALSE;
    }
    if (v < table[id].min || v > table[id].max) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s%sknob '%s': %s is outside [%g, %g] %s", where ? where : "",
                    where ? ": " : "", name, value, table[id].min, table[id].max, table[id].unit);
        return FALSE;
    }
    /* a switch or a code has no value between its settings: 1.5 is refused, not rounded */
    if ((strcmp(table[id].unit, "bool") == 0 || strcmp(table[id].unit, "code") == 0) &&
        v != floor(v)) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_VALUE,
                    "%s%sknob '%s': %s is not one of its settings (a %s: a whole number in "
                    "[%g, %g])",
                    where ? where : "", where ? ": " : "", name, value, table[id].unit,
                    table[id].min, table[id].max);
        return FALSE;
    }
    knobs->v[id] = v;
    if (mask != NULL)
        mask[id] = TRUE;
    return TRUE;
}

static gboolean set_assignment(PrismKnobs *knobs, gboolean *mask, const char *assignment,
                               GError **error)
{
    const char *eq = strchr(assignment, '=');
    if (eq == NULL) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_PARSE, "'%s' is not NAME=VALUE",
                    assignment);
        return FALSE;
    }
    g_autofree char *name = g_strstrip(g_strndup(assignment, (gsize)(eq - assignment)));
    g_autofree char *value = g_strstrip(g_strdup(eq + 1));
    return set_value(knobs, mask, name, value, NULL, error);
}

gboolean prism_knobs_set(PrismKnobs *knobs, const char *assignment, GError **error)
{
    return set_assignment(knobs, NULL, assignment, error);
}

static gboolean load_file(PrismKnobs *knobs, gboolean *mask, const char *path, GError **error)
{
    g_autofree char *label = g_strdup_printf("knobs file %s", path);
    g_autoptr(GKeyFile) kf = prism_keyfile_load(path, label, error);
    if (kf == NULL)
        return FALSE;
    if (!g_key_file_has_group(kf, "knobs")) {
        g_set_error(error, PRISM_INPUT_ERROR, PRISM_INPUT_ERROR_MISSING,
                    "knobs file %s: no [knobs] group", path);
        return FALSE;
    }
    gsize n = 0;
    g_auto(GStrv) keys = g_key_file_get_keys(kf, "knobs", &n, NULL);
    for (gsize i = 0; i < n; i++) {
        g_autofree char *value = g_key_file_get_value(kf, "knobs", keys[i], NULL);
        g_autofree char *where = g_strdup_printf("knobs file %s [knobs]", path);
        if (!set_value(knobs, mask, keys[i], value ? g_strstrip(value) : "", where, error))
            return FALSE;
    }
    return TRUE;
}

gboolean prism_knobs_load_file(PrismKnobs *knobs, const char *path, GError **error)
{
    return load_file(knobs, NULL, path, error);
}

void prism_knob_overrides_init(PrismKnobOverrides *o)
{
    prism_knobs_default(&o->knobs);
    for (int i = 0; i < PRISM_KNOB_COUNT; i++)
        o->set[i] = FALSE;
}

gboolean prism_knob_overrides_set(PrismKnobOverrides *o, const char *assignment, GError **error)
{
    return set_assignment(&o->knobs, o->set, assignment, error);
}

gboolean prism_knob_overrides_load_file(PrismKnobOverrides *o, const char *path, GError **error)
{
    return load_file(&o->knobs, o->set, path, error);
}

void prism_knob_overrides_apply(const PrismKnobOverrides *o, PrismKnobs *knobs)
{
    for (int i = 0; o != NULL && i < PRISM_KNOB_COUNT; i++)
        if (o->set[i])
            knobs->v[i] = o->knobs.v[i];
}

char *prism_knobs_to_json(const PrismKnobs *knobs)
{
    GString *s = g_string_new("{");
    for (int i = 0; i < PRISM_KNOB_COUNT; i++) {
        char num[G_ASCII_DTOSTR_BUF_SIZE];
        prism_format_double(num, sizeof num, knobs->v[i]);
        g_string_append_printf(s, "%s\"%s\": %s", i ? ", " : "", table[i].name, num);
    }
    g_string_append_c(s, '}');
    return g_string_free(s, FALSE);
}
