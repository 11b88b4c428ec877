variable "model" {
  type    = string
  default = "meta-llama/Llama-3.1-8B-Instruct"
}

variable "context_length" {
  type    = number
  default = 32768
}

variable "max_total_tokens" {
  type        = number
  description = "KV pool size in tokens"
  default     = 200000
}

variable "gpus" {
  type    = number
  default = 1
}
