/*
 * aclnnop/aclnn_scatter_nd_update.h - aclnnScatterNdUpdate, as tngc's generated ACL code calls it
 * (tngc's test declarations, not CANN's header; see acl/acl.h). C++ only,
 * as CANN's aclnnop/ headers are: a C file that includes it does not
 * compile (aclnn/acl_meta.h says why the bundles do not).
 *
 * What it computes: in place on varRef: the slices of varRef that the last dim of
 * indices addresses take the values of updates.
 *
 * From CANN's public aclnn API reference:
 *   https://www.hiascend.com/document/detail/zh/CANNCommunityEdition/80RC3alpha003/apiref/aolapi/context/aclnnScatterNdUpdate.md
 */
#ifndef TNGC_TEST_ACLNN_SCATTER_ND_UPDATE_H
#define TNGC_TEST_ACLNN_SCATTER_ND_UPDATE_H

#include <cstdint>

#include "aclnn/acl_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

aclnnStatus aclnnScatterNdUpdateGetWorkspaceSize(aclTensor *varRef, const aclTensor *indices, const aclTensor *updates,
    uint64_t *workspaceSize, aclOpExecutor **executor);
aclnnStatus aclnnScatterNdUpdate(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif
