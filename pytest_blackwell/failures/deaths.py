"""A process's death that it brought on itself once it met an error, as shells and runtimes word it.

The classifier reads such a death as the doing of the error line right above it (see
:func:`pytest_blackwell.failures.candidates.died_of`), and rules read it in other languages too.
"""

from __future__ import annotations

import re

#: A death a process brings on itself once it met an error: a segmentation fault, an abort, a
#: core dump (not a kill from outside: SIGKILL, SIGTERM, an exit status a launcher reports).
#: glibc's translations of "Segmentation fault" and "Aborted", as a shell reports a job's death.
LOCAL_SELF_DEATHS = (
    "Ошибка сегментирования|Speicherzugriffsfehler|Erreur de segmentation|Violación de segmento"
    "|段错误|セグメンテーション違反|Errore di segmentazione|Falha de segmentação"
    "|Аварийный останов|Abgebrochen|Abandon|Abortado|已放弃"
)
SELF_INFLICTED = re.compile(
    r"(?i)\bsegmentation fault\b|\bSIG(?:SEGV|ABRT)\b|\babort(?:ed)?\b|\bcore dumped\b"
    r"|\bsignal (?:6|11)\b|" + LOCAL_SELF_DEATHS
)
#: How many lines below an error line no rule knows a death is still that error's doing.
DEATH_GAP = 5
