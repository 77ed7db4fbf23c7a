// tests/findings_testing.h — shared by the findings tests (test_findings_margin, test_findings_rules):
// write each bad experiment text to DIR/bad.yaml, load its findings and check that the load is
// refused with a message containing the case's needle (file:line:col and what is valid).
#pragma once

typedef struct {
    const char *text;   // a whole experiment file
    const char *needle; // a part of the refusal message
} findings_refusal;

// One check per case, named "<label> <i>: <needle>"; a file that cannot be written fails the case.
void findings_check_refusals(const char *dir, const findings_refusal *cases, int n, const char *label);
