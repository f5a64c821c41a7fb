import torch
import torch_npu
import torchair as tng
import ｏs  # expect: TNG003
from ｍod import ｙ  # expect: TNG003


# Python reads identifiers in their NFKC normal form: `ｘ` (fullwidth) and
# `x` are one name to it. tngc does not normalise, so every identifier
# with a character not known to be NFKC-normal is reported (a def, class,
# parameter, attribute, keyword, import, f-string field; `é` written as e
# and a combining accent), and nothing else in the file is analysed (the
# super_kernel option below is not checked). Names in CJK, kana, Hangul,
# Latin-1, Greek or Cyrillic letters are their own NFKC form and fine, and
# so is any text in strings and comments (ｘ).
class Ｍodel(torch.nn.Module):  # expect: TNG003
    def ｆorward(self, x, ｋ=1):  # expect: TNG003
        ｘ = x * 2  # expect: TNG003
        name = f"层 {x.ｓhape} ｘ"  # expect: TNG003
        with tng.scope.super_kernel("sk", "bogus-option=1"):
            return x + 1


def f(**kw):
    return kw


f(ｋey=1)  # expect: TNG003
层数 = 2
café = 层数 + len("ｘ")
café = 3  # expect: TNG003
ｚ = 2  # tngc: ignore[TNG003]  # expect: TNG003
