import torchair

config = torchair.CompilerConfig()
config.mode = "reduce-overhead"
