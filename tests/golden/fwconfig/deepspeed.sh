# deepspeed configuration written by prism
# follows DeepSpeed ds_config (deepspeed/runtime/constants.py, zero/config.py) with microsoft/Megatron-DeepSpeed megatron/arguments.py (its layout with --checkpoint-activations and --zero-stage, before Megatron-LM's sequence parallelism)
# model gpt3-175b, 1024 devices, gbs 1536, seq 2048, bf16
# strategy dp=16,tp=8,pp=8,vpp=1,cp=1,ep=1,sp=0,mbs=1,m=96,zero=1,recompute=full,schedule=1f1b
cat > ds_config.json <<'EOF'
{
  "train_batch_size": 1536,
  "train_micro_batch_size_per_gpu": 1,
  "gradient_accumulation_steps": 96,
  "bf16": {"enabled": true},
  "fp16": {"enabled": false},
  "zero_optimization": {"stage": 1}
}
EOF
# world size 1024 = data parallel 16 x tensor 8 x pipeline 8
deepspeed pretrain_gpt.py \
    --num-layers 96 \
    --hidden-size 12288 \
    --num-attention-heads 96 \
    --ffn-hidden-size 49152 \
    --seq-length 2048 \
    --max-position-embeddings 2048 \
    --micro-batch-size 1 \
    --global-batch-size 1536 \
    --tensor-model-parallel-size 8 \
    --pipeline-model-parallel-size 8 \
    --checkpoint-activations \
    --zero-stage 1 \
    --bf16 \
    --deepspeed \
    --deepspeed_config ds_config.json
