"""Korean particles chosen by the final consonant (받침) of the word before them.

A Korean message is written with both forms of a particle after a placeholder, the way
Korean software writes them when the word is not known: ``%(name)s이(가)``, ``은(는)``,
``을(를)``, ``와(과)``, ``(으)로``, ``(이)라는``. Once the placeholder is filled,
:func:`resolve` keeps the one form that reads right: "자체 보유가", "최적 조합은", "₩51.6억으로",
"10%로", "H100으로" (백), "AWS와" (에스), "Slurm을" (슬럼).

How the word before is read aloud:

- a Hangul syllable: its own final consonant (ㄹ counts apart for 으로/로: "서울로");
- a number: the Korean reading of its last non-zero place: 1 일, 3 삼, 6 육, 7 칠, 8 팔 end
  in a consonant, 2 이, 4 사, 5 오, 9 구 do not; trailing zeros read 십 (10), 백 (100),
  천 (1,000), 만 (10,000 up to 10 million), 억 (10^8 and up); 0 alone is 영;
- a unit or sign: ``%`` 퍼센트, ``h`` 시간, ``kW`` 킬로와트, ``kWh`` 킬로와트시, ``GB`` 기가바이트;
- a Latin word: a word written in capitals (an acronym: AWS, CSV, FOCUS is read as a word,
  see NAMES) by the name of its last letter (L 엘, M 엠, N 엔, R 알 end in a consonant);
  another word by its last sounds: ``-ng`` ㅇ, ``-l`` ㄹ, ``-m`` ㅁ, ``-n`` ㄴ, ``-k``/``-ck`` ㄱ,
  others none (Cloud 클라우드, Excel 엑셀, Slurm 슬럼);
- closing quotes and brackets are looked through: "'p5'와", "(H100)을".
"""
from __future__ import annotations

import re
from typing import Optional

# (form after a final consonant, form after a vowel) of each written pair.
PAIRS = {
    "이(가)": ("이", "가"), "가(이)": ("이", "가"),
    "은(는)": ("은", "는"), "는(은)": ("은", "는"),
    "을(를)": ("을", "를"), "를(을)": ("을", "를"),
    "와(과)": ("과", "와"), "과(와)": ("과", "와"),
    "(으)로": ("으로", "로"), "(이)라는": ("이라는", "라는"), "(이)나": ("이나", "나"),
    "(이)며": ("이며", "며"), "(이)고": ("이고", "고"), "(이)면": ("이면", "면"),
}
PARTICLE = re.compile("|".join(re.escape(p) for p in sorted(PAIRS, key=len, reverse=True)))
# What a reader skips to find the word a particle follows (quotes, brackets, an HTML entity
# of an escaped quote, a closing tag: "<strong>p5</strong>를").
CLOSING = re.compile(r"(?:['\"’”)\]}>»」』]|&#39;|&#34;|&quot;|&gt;|&amp;"
                     r"|<[^<>]*>)+$")

SYLLABLE_FIRST, SYLLABLE_LAST = 0xAC00, 0xD7A3
RIEUL = 8   # index of ㄹ among the final consonants of a Hangul syllable
DIGITS = {"0": "영", "1": "일", "2": "이", "3": "삼", "4": "사", "5": "오", "6": "육",
          "7": "칠", "8": "팔", "9": "구"}
PLACES = {1: "십", 2: "백", 3: "천", 4: "만", 5: "만", 6: "만", 7: "만", 8: "억"}
LETTERS = {"A": "에이", "B": "비", "C": "씨", "D": "디", "E": "이", "F": "에프", "G": "지",
           "H": "에이치", "I": "아이", "J": "제이", "K": "케이", "L": "엘", "M": "엠", "N": "엔",
           "O": "오", "P": "피", "Q": "큐", "R": "알", "S": "에스", "T": "티", "U": "유",
           "V": "브이", "W": "더블유", "X": "엑스", "Y": "와이", "Z": "지"}
# Names and units read as words, not letter by letter (the Korean reading's last syllable).
NAMES = {"focus": "스", "slurm": "럼", "azure": "저", "excel": "셀", "google": "글",
         "cloud": "드", "nvidia": "아", "prometheus": "스", "kw": "트", "kwh": "시",
         "mwh": "시", "gb": "트", "tb": "트", "mb": "트", "h": "간", "pue": "이",
         "xlsx": "스", "csv": "이",
         "json": "슨", "pdf": "프", "api": "이", "gpu": "유", "cpu": "유"}
SIGNS = {"%": "트", "₩": "원", "$": "러", "€": "로", "원": "원"}
ENDINGS = (("ng", "앙"), ("ck", "악"), ("l", "을"), ("m", "음"), ("n", "은"), ("k", "윽"))
NUMBER = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?$")
WORD = re.compile(r"[A-Za-z]+$")
UNFILLED = re.compile(r"(?:%\(\w+\)[sd]|\{\w*\})$")   # a template's placeholder, not a word yet


def final(syllable: str) -> int:
    """Index of the final consonant of a Hangul syllable (0: none, 8: ㄹ); -1 for another
    character."""
    code = ord(syllable)
    if SYLLABLE_FIRST <= code <= SYLLABLE_LAST:
        return (code - SYLLABLE_FIRST) % 28
    return -1


def number_reading(text: str) -> str:
    """The last syllable of a number read in Korean (sino-Korean): '120' -> 십, '3' -> 삼."""
    digits = text.split(".")[1] if "." in text else text.replace(",", "")
    if "." in text:
        return DIGITS[digits[-1]]
    stripped = digits.rstrip("0")
    if not stripped:
        return DIGITS["0"]
    zeros = len(digits) - len(stripped)
    if zeros == 0:
        return DIGITS[digits[-1]]
    return PLACES[min(zeros, 8)] if zeros < 12 else "조"


def last_syllable(word: str) -> Optional[str]:
    """The Hangul syllable a reader says last for the end of ``word``; None when unknown."""
    word = CLOSING.sub("", word.rstrip())
    if not word:
        return None
    if final(word[-1]) >= 0:
        return word[-1]
    if word[-1] in SIGNS:
        return SIGNS[word[-1]]
    number = NUMBER.search(word)
    if number:
        return number_reading(number.group())
    latin = WORD.search(word)
    if latin:
        text = latin.group()
        if text.lower() in NAMES:
            return NAMES[text.lower()]
        if text.isupper() or len(text) == 1:
            return LETTERS[text[-1].upper()][-1]
        for ending, syllable in ENDINGS:
            if text.lower().endswith(ending):
                return syllable
        return "아"     # a vowel ending: -e, -a, -y, -r, -s, -t, -d ... (클라우드, 오더)
    return None


def choose(word: str, pair: str) -> str:
    """The form of ``pair`` (a key of PAIRS) that follows ``word``."""
    after_consonant, after_vowel = PAIRS[pair]
    if UNFILLED.search(word):
        return pair   # a template before formatting: fitted once it is filled in
    syllable = last_syllable(word)
    if syllable is None:
        return pair   # nothing to read (a symbol): keep both forms
    batchim = final(syllable)
    if pair == "(으)로":
        return after_vowel if batchim in (0, RIEUL) else after_consonant
    return after_consonant if batchim > 0 else after_vowel


def resolve(text: str) -> str:
    """``text`` with each written pair of particles reduced to the form that reads right."""
    if "(" not in text:
        return text
    out, last = [], 0
    for match in PARTICLE.finditer(text):
        out.append(text[last:match.start()])
        before = "".join(out)
        out.append(choose(before, match.group()))
        last = match.end()
    out.append(text[last:])
    return "".join(out)
