#!/bin/bash
# Baseline for the benchmarks: the reference skill's PostToolUse error detector, re-implemented
# from its described behaviour: 17 case-sensitive substrings, first hit wins, plain stdout.
# SOURCE=env (as shipped) reads $CLAUDE_TOOL_OUTPUT, which Claude Code never sets; SOURCE=stdin
# (the fixed variant) reads the hook's stdin.
if [ "${SOURCE:-stdin}" = env ]; then
    OUTPUT="${CLAUDE_TOOL_OUTPUT:-}"
else
    OUTPUT=$(cat)
fi
PATTERNS=("error:" "Error:" "ERROR:" "failed" "FAILED" "command not found" "No such file"
    "Permission denied" "fatal:" "Exception" "Traceback" "npm ERR!" "ModuleNotFoundError"
    "SyntaxError" "TypeError" "exit code" "non-zero")
for pattern in "${PATTERNS[@]}"; do
    if [[ "$OUTPUT" == *"$pattern"* ]]; then
        cat << 'EOF2'
<error-detected>
A command error was detected. Consider logging it to .learnings/ERRORS.md if:
- the error was unexpected or not obvious
- it took investigation to resolve
- it may happen again in a similar context
- the fix would help future sessions

Use the self-improvement skill format: [ERR-YYYYMMDD-XXX]
</error-detected>
EOF2
        break
    fi
done
exit 0
