/*
 * aclnnop/aclnn_dynamic_quant.h - aclnnDynamicQuant, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * What it computes: per-row symmetric int8 quantisation: scale = row_max(|x * smooth|) / 127,
 * y = round(x * smooth / scale).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/canncommercial/800/apiref/aolapi/context/aclnnDynamicQuant.md
 */
#ifndef TNGC_TEST_ACLNN_DYNAMIC_QUANT_H
#define TNGC_TEST_ACLNN_DYNAMIC_QUANT_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnDynamicQuantGetWorkspaceSize(const aclTensor *x, const aclTensor *smoothScalesOptional, const aclTensor *yOut, const aclTensor *scaleOut,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnDynamicQuant(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
