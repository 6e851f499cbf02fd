#!/bin/bash
# A published Megatron-LM configuration as a launch script: Korthikanti et al. 2022
# ("Reducing Activation Recomputation in Large Transformer Models"), Table 5 "present work",
# GPT-3 175B on 64 A100-80GB (8 nodes of 8), the row KORTH22_T5 of the shared validation
# data (measured.csv): tp 8, pp 8, vpp 3 (96 layers / (8 x 3) = 4 layers per virtual
# stage), sequence parallel, selective recompute, micro-batch 1, global batch 64, seq 2048,
# measured 13.75 s per step. The row does not state the precision; --fp16 as Megatron-LM's
# GPT examples of 2022 (fp16 and bf16 have the same A100 tensor-core peak).
torchrun --nnodes 8 --nproc_per_node 8 pretrain_gpt.py \
    --num-layers 96 --hidden-size 12288 --num-attention-heads 96 \
    --seq-length 2048 --max-position-embeddings 2048 \
    --micro-batch-size 1 --global-batch-size 64 \
    --tensor-model-parallel-size 8 --pipeline-model-parallel-size 8 \
    --num-layers-per-virtual-pipeline-stage 4 \
    --sequence-parallel --recompute-activations \
    --train-iters 500000 --lr 6.0e-5 --min-lr 6.0e-6 --lr-decay-style cosine \
    --data-path my-gpt3_00_text_document --vocab-file gpt2-vocab.json \
    --merge-file gpt2-merges.txt --fp16
