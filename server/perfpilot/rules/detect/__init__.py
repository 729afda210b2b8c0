"""Detection code shared by the rules of one theme (loops, memory, numeric, ...); each rule
module names its detection here until it is moved into the rule module itself."""
