"""Generates /models/tiny-llama at image build time: nothing is downloaded.

A Llama (hidden 128, intermediate 256, 2 layers, 2 heads, vocab 1024, 2048 positions) with random weights from a
fixed torch seed, and a byte-level BPE tokenizer (<s>, </s>, <unk>) trained with `tokenizers` on fixed text made
here from a fixed random seed. Same bytes on every build (single-threaded training, fixed seeds, safetensors).

Usage: python3 gen-model.py OUT_DIR
"""
import os
import random
import sys

os.environ.setdefault("RAYON_NUM_THREADS", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import torch  # noqa: E402
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers  # noqa: E402
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast  # noqa: E402

SEED = 20260501
VOCAB = 1024


def corpus():
    rnd = random.Random(SEED)
    syll = ["ka", "ve", "lo", "mi", "tu", "ra", "sen", "dor", "pli", "que", "zan", "bo", "ther", "ing", "al",
            "on", "ex", "ch", "st", "ou", "ei", "gr", "an", "ed"]
    words = sorted({"".join(rnd.choice(syll) for _ in range(rnd.randint(1, 4))) for _ in range(3000)})
    words += ["the", "of", "and", "to", "in", "cache", "page", "pool", "tenant", "engine", "token", "block"]
    for _ in range(4000):
        n = rnd.randint(5, 20)
        s = " ".join(rnd.choice(words) for _ in range(n))
        yield s[0].upper() + s[1:] + rnd.choice([".", ",", "!", "?", ";"]) + (" " + str(rnd.randint(0, 999)))


def main(out):
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        special_tokens=["<s>", "</s>", "<unk>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(list(corpus()), trainer)
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", bos)])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>", model_max_length=2048
    )

    torch.manual_seed(SEED)
    cfg = LlamaConfig(
        vocab_size=tok.get_vocab_size(),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=2,
        num_key_value_heads=2,
        max_position_embeddings=2048,
        bos_token_id=bos,
        eos_token_id=eos,
        tie_word_embeddings=False,
        torch_dtype="float32",
    )
    model = LlamaForCausalLM(cfg).to(torch.float32)
    os.makedirs(out, exist_ok=True)
    model.save_pretrained(out, safe_serialization=True)
    fast.save_pretrained(out)
    print(f"gen-model: {out}: vocab {tok.get_vocab_size()}, {sum(p.numel() for p in model.parameters())} parameters",
          file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1])
