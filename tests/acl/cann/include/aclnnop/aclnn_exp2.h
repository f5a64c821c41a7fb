/*
 * aclnnop/aclnn_exp2.h - aclnnExp2, as tngc's generated ACL code
 * calls it (tngc's test declarations, not CANN's header; see acl/acl.h).
 * C++ only, as CANN's aclnnop/ headers are: a C file that includes it does
 * not compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/82RC1alpha002/API/aolapi/context/aclnnExp2.md
 */
#ifndef TNGC_TEST_ACLNN_EXP2_H
#define TNGC_TEST_ACLNN_EXP2_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnExp2GetWorkspaceSize(const aclTensor *self, aclTensor *out,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnExp2(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
