"""Train a small, randomly initialised BERT classifier with the Hugging Face Trainer.

A SageMaker-style script: hyperparameters as `--key value` arguments, paths
from SM_* variables. It has no bessemer line at all: in a bessemer job with the
compiler on, the job's start-up hook compiles the Trainer's model.

The task is made up and generated here (no downloads): sequences of token ids,
labelled 1 when token 7 occurs more often than token 8.
"""
import argparse
import os

import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

VOCAB = 32


class CountingTask(torch.utils.data.Dataset):
    def __init__(self, size: int, seq_len: int, seed: int):
        g = torch.Generator().manual_seed(seed)
        self.input_ids = torch.randint(1, VOCAB, (size, seq_len), generator=g)
        self.labels = ((self.input_ids == 7).sum(1) > (self.input_ids == 8).sum(1)).long()

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int) -> dict:
        return {"input_ids": self.input_ids[i], "attention_mask": torch.ones_like(self.input_ids[i]),
                "labels": self.labels[i]}


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=float, default=1.0)
    p.add_argument("--max_steps", type=int, default=-1)
    p.add_argument("--batch_size", type=int, default=8, help="per process")
    p.add_argument("--learning_rate", type=float, default=1e-3)
    p.add_argument("--samples", type=int, default=128)
    p.add_argument("--seq_len", type=int, default=16)
    p.add_argument("--hidden", type=int, default=32)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model-dir", default=os.environ.get("SM_MODEL_DIR", "model"))
    p.add_argument("--output-data-dir", default=os.environ.get("SM_OUTPUT_DATA_DIR", "output"))
    return p.parse_args()


def main() -> None:
    args = parse_args()
    torch.manual_seed(args.seed)
    config = BertConfig(vocab_size=VOCAB, hidden_size=args.hidden, num_hidden_layers=args.layers,
                        num_attention_heads=2, intermediate_size=2 * args.hidden,
                        max_position_embeddings=args.seq_len, num_labels=2)
    model = BertForSequenceClassification(config)
    training_args = TrainingArguments(
        output_dir=os.path.join(args.output_data_dir, "trainer"),
        num_train_epochs=args.epochs,
        max_steps=args.max_steps,
        per_device_train_batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        seed=args.seed,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        disable_tqdm=True,
        dataloader_drop_last=True,  # one batch shape: no recompiles
        use_cpu=not torch.cuda.is_available(),
    )
    trainer = Trainer(model=model, args=training_args,
                      train_dataset=CountingTask(args.samples, args.seq_len, args.seed))
    result = trainer.train()
    print(f"train_loss={result.training_loss:.6f}", flush=True)
    trainer.save_model(args.model_dir)


if __name__ == "__main__":
    main()
