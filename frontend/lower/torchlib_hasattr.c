/*
 * torchlib_hasattr.c - the torch library (torchlib.c), what PyTorch 2.x
 * has, for hasattr() at build time: the names of torch, torch.nn,
 * torch.nn.functional, torch.Tensor and torch_npu that tngc compiles, the
 * public names of nn.Module and the public attributes of some nn modules.
 * Every answer is PyTorch 2.1's and later releases' (TorchAir needs
 * torch 2.1 or later); a name whose answer differs between 2.x releases,
 * or that tngc does not know, has no answer here (-1).
 */
#include "torchlib.h"
#include "torchlib_int.h"

/* nn.Module's public methods and attributes in every PyTorch release from
 * 2.1 on. */
static const char *const hasattr__module_names[] = {
    "T_destination", "add_module", "apply", "bfloat16", "buffers", "call_super_init", "children", "cpu",
    "cuda", "double", "dump_patches", "eval", "extra_repr", "float", "forward", "get_buffer",
    "get_extra_state", "get_parameter", "get_submodule", "half", "ipu", "load_state_dict", "modules",
    "named_buffers", "named_children", "named_modules", "named_parameters", "parameters",
    "register_backward_hook", "register_buffer", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "register_full_backward_pre_hook", "register_load_state_dict_post_hook",
    "register_module", "register_parameter", "register_state_dict_pre_hook", "requires_grad_",
    "set_extra_state", "share_memory", "state_dict", "to", "to_empty", "train", "training", "type", "xpu",
    "zero_grad"};

/* nn.Module names that some 2.x releases have and others not. */
static const char *const hasattr__module_later[] = {
    "compile", "mtia", "set_submodule", "register_load_state_dict_pre_hook", "register_state_dict_post_hook"};

/* The public attributes of nn modules beyond nn.Module's (their
 * constructors set them, or the class defines them), the same in every
 * release from 2.1 on. A module not listed has no answer. */
static const struct { const char *cls, *attrs; } hasattr__classes[] = {
    {"Linear", " bias in_features out_features reset_parameters weight "},
    {"Embedding", " embedding_dim from_pretrained max_norm norm_type num_embeddings padding_idx reset_parameters "
                  "scale_grad_by_freq sparse weight "},
    {"LayerNorm", " bias elementwise_affine eps normalized_shape reset_parameters weight "},
    {"Conv1d", " bias dilation groups in_channels kernel_size out_channels output_padding padding padding_mode "
               "reset_parameters stride transposed weight "},
    {"Conv2d", " bias dilation groups in_channels kernel_size out_channels output_padding padding padding_mode "
               "reset_parameters stride transposed weight "},
    {"GroupNorm", " affine bias eps num_channels num_groups reset_parameters weight "},
    {"Dropout", " inplace p "},
    {"GELU", " approximate "},
    {"ReLU", " inplace "},
    {"SiLU", " inplace "},
    {"Softmax", " dim "},
    {"Identity", " "},
    {"Tanh", " "},
    {"Sigmoid", " "},
};

/* 1 when s is one of the n strings of list. */
static int hasattr__in(const char *const *list, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i], s) == 0)
            return 1;
    return 0;
}

int torchlib_nn_module_has(const char *name)
{
    if (hasattr__in(hasattr__module_names, NELEM(hasattr__module_names), name))
        return 1;
    if (name[0] == '_' || hasattr__in(hasattr__module_later, NELEM(hasattr__module_later), name))
        return -1;   /* nn.Module's own private names, or a later release's */
    return 0;
}

int torchlib_module_hasattr(const Obj *inst, const char *name)
{
    if (!inst || inst->kind != O_INST || inst->cls || !inst->s || strncmp(inst->s, "torch.nn.", 9) != 0)
        return -1;
    if (obj_getattr(inst, name))
        return 1;   /* set on it (its parameters, or by the script) */
    int k = torchlib_nn_module_has(name);
    if (k != 0)
        return k;
    for (size_t i = 0; i < NELEM(hasattr__classes); i++) {
        if (strcmp(inst->s + 9, hasattr__classes[i].cls) != 0)
            continue;
        size_t n = strlen(name);
        for (const char *at = hasattr__classes[i].attrs; (at = strstr(at, name)); at += n)
            if (at[-1] == ' ' && at[n] == ' ')   /* a whole word of the list (it starts with a space) */
                return 1;
        return 0;
    }
    return -1;
}

int torchlib_has_name(const char *path)
{
    static const char *const names[] = {
        "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.Module", "torch.nn.Parameter",
        "torch.Tensor", "torch.compile", "torch.no_grad", "torch.inference_mode", "torch.Size", "torch.device",
        "torch.manual_seed", "torch.pi", "torch.inf", "torch.linalg"};
    /* names of lib[] that PyTorch 2.4 added */
    static const char *const later[] = {"torch.rms_norm", "torch.nn.functional.rms_norm"};
    if (hasattr__in(later, NELEM(later), path))
        return -1;
    if (hasattr__in(names, NELEM(names), path) || dtype_from_torch_name(path) != DT_UNKNOWN)
        return 1;
    if (strncmp(path, "torch.nn.", 9) == 0 && !strchr(path + 9, '.'))
        return tl_module_class_known(path + 9) ? 1 : -1;
    return tl_lib_has(path) ? 1 : -1;
}
