#!/bin/bash
# Baseline for the benchmarks: the reference skill's UserPromptSubmit activator, re-implemented
# from its described behaviour. It prints the same reminder on EVERY prompt. Our wording; the
# block is about the original's length (441 characters); the token benchmark counts it.
cat << 'EOF2'
<self-improvement-reminder>
When this task is complete, check whether reusable knowledge came out of it:
- A non-obvious solution found by investigating?
- A workaround for behaviour that was unexpected?
- A pattern specific to this project?
- An error that took real debugging to fix?

If so: log it under .learnings/ in the self-improvement skill's format.
If it is valuable (recurring, widely useful): think about extracting a skill.
</self-improvement-reminder>
EOF2
