variable "context_length" {
  type    = number
  default = 131072
}

variable "pool_tokens" {
  type = number
}

data "aws_ssm_parameter" "pool" {
  name = "/llm/decode/pool-tokens"
}

resource "kubernetes_manifest" "decode" {
  manifest = yamldecode(templatefile("${path.module}/decode.yaml.tftpl", {
    name           = "decode"
    context_length = var.context_length
    pool_tokens    = var.pool_tokens
    extra_args     = ["--page-size", "64"]
  }))
}

resource "kubernetes_manifest" "decode_ssm" {
  manifest = yamldecode(templatefile("${path.module}/decode.yaml.tftpl", {
    name           = "decode-ssm"
    context_length = var.context_length
    pool_tokens    = data.aws_ssm_parameter.pool.value
    extra_args     = []
  }))
}
