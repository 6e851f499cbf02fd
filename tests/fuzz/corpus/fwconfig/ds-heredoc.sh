#!/bin/bash
cat > ds.json <<EOF
{"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 2, "zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}, "bf16": {"enabled": true}}
EOF
deepspeed train.py --tensor-model-parallel-size 2 --no-pipeline-parallel --deepspeed --deepspeed_config ds.json
