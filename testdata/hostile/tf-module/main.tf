variable "context" {
  default = 8192
}
